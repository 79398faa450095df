#include <mocks/statistics_device_allocator.h>

#include <utility>

namespace devplan {

StatisticsDeviceAllocator::StatisticsDeviceAllocator(DeviceAllocator* upstream, std::string name)
    : DeviceAllocatorAdaptor(upstream, std::move(name)) {}

Result<void*> StatisticsDeviceAllocator::allocate(size_t nbytes, DeviceIndex index,
                                                  size_t alignment) {
  Result<void*> ptr = upstream().allocate(nbytes, index, alignment);
  if (index < 0) return ptr;  // no counters for a negative index
  if (!ptr.ok()) {
    stats_[index].failed_allocations += 1;
    return ptr;
  }
  count_allocation(index, nbytes);
  return ptr;
}

void StatisticsDeviceAllocator::deallocate_sized(void* ptr, size_t nbytes, DeviceIndex index) {
  if (index >= 0) count_free(index, nbytes);
  forward_deallocate(ptr, nbytes, index);
}

DeviceAllocationStats StatisticsDeviceAllocator::stats(DeviceIndex index) const {
  return index < 0 ? DeviceAllocationStats{} : stats_[index];
}

Error StatisticsDeviceAllocator::copy(const DeviceCopy& c) {
  Error result = forward_copy(c);
  if (!result.ok() || c.nbytes == 0 || c.index < 0) return result;
  DeviceAllocationStats& s = stats_[c.index];
  if (c.to_device()) {
    s.host_to_device_copies += 1;
    s.host_to_device_bytes += c.nbytes;
  } else {
    s.device_to_host_copies += 1;
    s.device_to_host_bytes += c.nbytes;
  }
  return result;
}

}  // namespace devplan
