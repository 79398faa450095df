#include <mocks/limiting_device_allocator.h>

#include <utility>

#include <mocks/allocation_text.h>

namespace devplan {

LimitingDeviceAllocator::LimitingDeviceAllocator(DeviceAllocator* upstream, std::string name)
    : DeviceAllocatorAdaptor(upstream, std::move(name)) {
  capacity_.fill(kUnlimited);
}

Result<void*> LimitingDeviceAllocator::allocate(size_t nbytes, DeviceIndex index,
                                                size_t alignment) {
  // A negative index has no limits here; the upstream rejects it.
  if (index >= 0 && !admits(nbytes, index)) {
    return error("allocate", ErrorCode::MemoryAllocationFailed, broken_limit(nbytes, index));
  }
  Result<void*> ptr = upstream().allocate(nbytes, index, alignment);
  if (ptr.ok() && index >= 0) count_allocation(index, nbytes);
  return ptr;
}

void LimitingDeviceAllocator::deallocate_sized(void* ptr, size_t nbytes, DeviceIndex index) {
  if (index >= 0) count_free(index, nbytes);
  forward_deallocate(ptr, nbytes, index);
}

Error LimitingDeviceAllocator::set_capacity(DeviceIndex index, uint64_t bytes) {
  if (index < 0) return negative_index_error(name(), "set_capacity", Device(device_type(), index));
  capacity_[index] = bytes;
  return Error::success();
}

std::string LimitingDeviceAllocator::broken_limit(size_t nbytes, DeviceIndex index) const {
  const Device device(device_type(), index);
  if (over_capacity(nbytes, index)) {
    return "out of memory on " + device.to_string() + ": requested " + std::to_string(nbytes) +
           " bytes with " + std::to_string(live_bytes_[index]) + " bytes live, capacity " +
           std::to_string(capacity_[index]) + " bytes";
  }
  return bytes_on_device(nbytes, device) + " exceed the largest simulated allocation (" +
         std::to_string(max_allocation_bytes_) + " bytes)";
}

}  // namespace devplan
