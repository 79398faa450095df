#include <mocks/index_mapping_device_allocator.h>

#include <string>

namespace devplan {

IndexMappingDeviceAllocator::IndexMappingDeviceAllocator(DeviceAllocator* upstream)
    : upstream_(upstream) {
  for (size_t i = 0; i < targets_.size(); ++i) targets_[i] = static_cast<DeviceIndex>(i);
}

Error IndexMappingDeviceAllocator::map(DeviceIndex from, DeviceIndex to) {
  const Device from_device(upstream_->device_type(), from);
  if (from < 0 || to < 0) {
    return Error(ErrorCode::InvalidArgument,
                 "IndexMappingDeviceAllocator::map: device indices must not be negative (" +
                     std::to_string(from) + " to " + std::to_string(to) + ")");
  }
  if (targets_[static_cast<size_t>(from)] != from && targets_[static_cast<size_t>(from)] != to) {
    return Error(ErrorCode::InvalidArgument,
                 "IndexMappingDeviceAllocator::map: " + from_device.to_string() +
                     " is already mapped to " +
                     Device(upstream_->device_type(), target(from)).to_string());
  }
  targets_[static_cast<size_t>(from)] = to;
  return Error::success();
}

DeviceIndex IndexMappingDeviceAllocator::target(DeviceIndex index) const {
  if (index < 0 || static_cast<size_t>(index) >= targets_.size()) return index;
  return targets_[static_cast<size_t>(index)];
}

Result<void*> IndexMappingDeviceAllocator::allocate(size_t nbytes, DeviceIndex index,
                                                    size_t alignment) {
  return upstream_->allocate(nbytes, target(index), alignment);
}

void IndexMappingDeviceAllocator::deallocate(void* ptr, DeviceIndex index) {
  upstream_->deallocate(ptr, target(index));
}

Error IndexMappingDeviceAllocator::copy_host_to_device(void* dst, const void* src, size_t nbytes,
                                                       DeviceIndex index) {
  return upstream_->copy_host_to_device(dst, src, nbytes, target(index));
}

Error IndexMappingDeviceAllocator::copy_device_to_host(void* dst, const void* src, size_t nbytes,
                                                       DeviceIndex index) {
  return upstream_->copy_device_to_host(dst, src, nbytes, target(index));
}

}  // namespace devplan
