#include <mocks/device_allocator_adaptor.h>

#include <utility>

namespace devplan {

DeviceAllocatorAdaptor::DeviceAllocatorAdaptor(DeviceAllocator* upstream, std::string name)
    : upstream_(upstream),
      sized_upstream_(dynamic_cast<SizedDeviceAllocator*>(upstream)),
      type_(upstream->device_type()),
      name_(std::move(name)) {}

Result<void*> DeviceAllocatorAdaptor::allocate(size_t nbytes, DeviceIndex index, size_t alignment) {
  return upstream_->allocate(nbytes, index, alignment);
}

void DeviceAllocatorAdaptor::deallocate(void* ptr, DeviceIndex index) {
  if (std::optional<LiveBlock> block = find_live_block(ptr)) {
    deallocate_sized(ptr, block->size, block->index);
  } else {
    upstream_->deallocate(ptr, index);  // not a live block: the upstream decides what that is
  }
}

void DeviceAllocatorAdaptor::deallocate_sized(void* ptr, size_t nbytes, DeviceIndex index) {
  forward_deallocate(ptr, nbytes, index);
}

std::optional<LiveBlock> DeviceAllocatorAdaptor::find_live_block(const void* ptr) const {
  if (sized_upstream_ == nullptr) return std::nullopt;
  return sized_upstream_->find_live_block(ptr);
}

Error DeviceAllocatorAdaptor::copy_host_to_device(void* dst, const void* src, size_t nbytes,
                                                  DeviceIndex index) {
  return copy(DeviceCopy{CopyDirection::HostToDevice, dst, src, nbytes, index});
}

Error DeviceAllocatorAdaptor::copy_device_to_host(void* dst, const void* src, size_t nbytes,
                                                  DeviceIndex index) {
  return copy(DeviceCopy{CopyDirection::DeviceToHost, dst, src, nbytes, index});
}

Error DeviceAllocatorAdaptor::copy(const DeviceCopy& copy) { return forward_copy(copy); }

Error DeviceAllocatorAdaptor::forward_copy(const DeviceCopy& c) {
  return c.to_device() ? upstream_->copy_host_to_device(c.dst, c.src, c.nbytes, c.index)
                       : upstream_->copy_device_to_host(c.dst, c.src, c.nbytes, c.index);
}

void DeviceAllocatorAdaptor::forward_deallocate(void* ptr, size_t nbytes, DeviceIndex index) {
  if (sized_upstream_ != nullptr) {
    sized_upstream_->deallocate_sized(ptr, nbytes, index);
  } else {
    upstream_->deallocate(ptr, index);
  }
}

Error DeviceAllocatorAdaptor::error(const char* method, ErrorCode code,
                                    const std::string& message) const {
  return Error(code, name_ + "::" + method + ": " + message);
}

}  // namespace devplan
