// HierarchicalAllocator: the planned buffers of one loaded method, one Device per buffer.
// It owns no memory and only does pointer arithmetic: a buffer may be host memory or device
// memory, and nothing here dereferences either.
//
//   Result<HierarchicalAllocator> planned =
//       HierarchicalAllocator::create({host_span, device_span}, {Device::cpu(), Device::cuda(0)});
//   Result<void*> p = planned->get_offset_address(/*buffer=*/1, /*offset=*/16, /*nbytes=*/16);
//
// Buffer ids here are the user-facing, 0-based indices (the file's memory_id minus one).
// Thread-compatible: const methods may be called concurrently.
#pragma once

#include <cstdint>
#include <vector>

#include <runtime_ext/core/device.h>
#include <runtime_ext/core/result.h>
#include <runtime_ext/core/span.h>

namespace devplan {

class HierarchicalAllocator {
 public:
  // InvalidArgument when `buffers` and `devices` differ in length, or a non-empty span has a
  // null pointer.
  static Result<HierarchicalAllocator> create(std::vector<Span<uint8_t>> buffers,
                                              std::vector<Device> devices);

  HierarchicalAllocator() = default;

  size_t num_buffers() const { return buffers_.size(); }
  Span<uint8_t> buffer(size_t id) const { return buffers_[id]; }
  Device device(size_t id) const { return devices_[id]; }
  const std::vector<Device>& devices() const { return devices_; }

  // Address of bytes [offset, offset + nbytes) in buffer `buffer_id`. InvalidArgument when the
  // buffer does not exist or the range does not fit in it (overflow checked); the message
  // names the buffer, the range and the buffer's size.
  Result<void*> get_offset_address(uint32_t buffer_id, uint64_t offset, uint64_t nbytes) const;

 private:
  HierarchicalAllocator(std::vector<Span<uint8_t>> buffers, std::vector<Device> devices)
      : buffers_(std::move(buffers)), devices_(std::move(devices)) {}

  std::vector<Span<uint8_t>> buffers_;
  std::vector<Device> devices_;
};

}  // namespace devplan
