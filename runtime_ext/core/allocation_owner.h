// ScopedAllocationOwner: names who an allocation is for ("forward/buffer 1"), for the duration
// of a scope on the current thread. Allocators that keep a ledger (TrackingDeviceAllocator)
// read current_allocation_owner() when they allocate; others ignore it.
//
//   {
//     ScopedAllocationOwner owner("forward/buffer 1");
//     auto buffer = DeviceMemoryBuffer::create(48, DeviceType::CUDA, 0);
//   }
#pragma once

#include <string>

namespace devplan {

// The innermost owner label set on this thread, or "" when none is.
const std::string& current_allocation_owner();

class ScopedAllocationOwner {
 public:
  explicit ScopedAllocationOwner(std::string owner);
  ~ScopedAllocationOwner();
  ScopedAllocationOwner(const ScopedAllocationOwner&) = delete;
  ScopedAllocationOwner& operator=(const ScopedAllocationOwner&) = delete;

 private:
  std::string previous_;
};

}  // namespace devplan
