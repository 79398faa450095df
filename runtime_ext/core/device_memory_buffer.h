// DeviceMemoryBuffer: move-only owner of one device allocation; frees it exactly once.
//
//   Result<DeviceMemoryBuffer> buf = DeviceMemoryBuffer::create(48, DeviceType::CUDA, 0);
//   if (!buf.ok()) return buf.error();   // NotFound when no CUDA allocator is registered
//   Span<uint8_t> bytes = buf->as_span();  // device pointer: never dereference on the host
//
// The buffer remembers the allocator that made it, so it is freed there even if the registry
// changed meanwhile. A zero-byte buffer makes no allocator call and owns nothing (its span is
// empty), but creating one still needs an allocator registered for the device.
// Not thread-safe; one owner at a time.
#pragma once

#include <cstddef>
#include <cstdint>

#include <runtime_ext/core/device_allocator.h>
#include <runtime_ext/core/device_allocator_registry.h>
#include <runtime_ext/core/span.h>

namespace devplan {

class DeviceMemoryBuffer final {
 public:
  // An empty buffer: no memory, frees nothing.
  DeviceMemoryBuffer() = default;

  // Allocates `size` bytes on device (type, index) through the allocator registered for
  // `type` in `registry`. Errors: NotFound naming the device when no allocator is registered;
  // otherwise whatever the allocator returned, with the device named in the message.
  static Result<DeviceMemoryBuffer> create(
      size_t size, DeviceType type, DeviceIndex index, size_t alignment = kDefaultAlignment,
      const DeviceAllocatorRegistry& registry = DeviceAllocatorRegistry::global());

  DeviceMemoryBuffer(DeviceMemoryBuffer&& other) noexcept;
  DeviceMemoryBuffer& operator=(DeviceMemoryBuffer&& other) noexcept;
  DeviceMemoryBuffer(const DeviceMemoryBuffer&) = delete;
  DeviceMemoryBuffer& operator=(const DeviceMemoryBuffer&) = delete;
  ~DeviceMemoryBuffer();

  void* data() const { return data_; }
  size_t size() const { return size_; }
  Device device() const { return device_; }
  DeviceAllocator* allocator() const { return allocator_; }
  Span<uint8_t> as_span() const { return Span<uint8_t>(static_cast<uint8_t*>(data_), size_); }

 private:
  DeviceMemoryBuffer(void* data, size_t size, Device device, DeviceAllocator* allocator)
      : data_(data), size_(size), device_(device), allocator_(allocator) {}
  void free_memory();

  void* data_ = nullptr;
  size_t size_ = 0;
  Device device_;
  DeviceAllocator* allocator_ = nullptr;
};

}  // namespace devplan
