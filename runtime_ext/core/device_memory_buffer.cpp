#include <runtime_ext/core/device_memory_buffer.h>

#include <utility>

namespace devplan {

Result<DeviceMemoryBuffer> DeviceMemoryBuffer::create(size_t size, DeviceType type,
                                                      DeviceIndex index, size_t alignment,
                                                      const DeviceAllocatorRegistry& registry) {
  const Device device(type, index);
  DeviceAllocator* allocator = registry.get(type);
  if (allocator == nullptr) {
    return Error(ErrorCode::NotFound, "no device allocator registered for " + device.to_string());
  }
  if (size == 0) return DeviceMemoryBuffer(nullptr, 0, device, allocator);
  Result<void*> ptr = allocator->allocate(size, index, alignment);
  if (!ptr.ok()) {
    return ptr.error().with_context("allocating " + std::to_string(size) + " bytes on " +
                                    device.to_string());
  }
  if (*ptr == nullptr) {
    return Error(
        ErrorCode::MemoryAllocationFailed,
        "allocator returned null for " + std::to_string(size) + " bytes on " + device.to_string());
  }
  return DeviceMemoryBuffer(*ptr, size, device, allocator);
}

DeviceMemoryBuffer::DeviceMemoryBuffer(DeviceMemoryBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      device_(other.device_),
      allocator_(std::exchange(other.allocator_, nullptr)) {}

DeviceMemoryBuffer& DeviceMemoryBuffer::operator=(DeviceMemoryBuffer&& other) noexcept {
  if (this != &other) {
    free_memory();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    device_ = other.device_;
    allocator_ = std::exchange(other.allocator_, nullptr);
  }
  return *this;
}

DeviceMemoryBuffer::~DeviceMemoryBuffer() { free_memory(); }

void DeviceMemoryBuffer::free_memory() {
  if (data_ != nullptr && allocator_ != nullptr) allocator_->deallocate(data_, device_.index);
  data_ = nullptr;
  size_ = 0;
  allocator_ = nullptr;
}

}  // namespace devplan
