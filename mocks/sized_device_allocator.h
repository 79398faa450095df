// SizedDeviceAllocator: a DeviceAllocator that can also free a block whose size and device the
// caller already knows, as RMM's device_memory_resource::deallocate(ptr, bytes) is told the size.
// The adaptors of TrackingDeviceAllocator pass sizes down this way, so that the layers that count
// bytes (statistics, capacity) keep no pointer map of their own: only the bottom layer
// (BlockStoreDeviceAllocator) maps pointers to blocks, and answers find_live_block() for a plain
// deallocate() that arrives without a size.
#pragma once

#include <cstddef>
#include <optional>

#include <runtime_ext/core/device_allocator.h>

namespace devplan {

// A live block as the allocator that handed it out knows it.
struct LiveBlock {
  size_t size = 0;        // bytes requested
  DeviceIndex index = 0;  // the device it was allocated on
};

class SizedDeviceAllocator : public DeviceAllocator {
 public:
  // Frees `ptr`, the start of a live block of `nbytes` bytes allocated on `index` (the block's
  // own device, whatever index a caller named).
  virtual void deallocate_sized(void* ptr, size_t nbytes, DeviceIndex index) = 0;

  // The live block that starts at `ptr`; nullopt for any other pointer.
  virtual std::optional<LiveBlock> find_live_block(const void* ptr) const = 0;
};

}  // namespace devplan
