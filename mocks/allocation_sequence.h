// AllocationSequence: numbers allocate() calls 1, 2, 3, ... for a stack of allocator adaptors.
//
// The outermost layer (LedgerDeviceAllocator) takes a number for every call, successful or not,
// before it forwards the call; an inner layer (FailureInjectingDeviceAllocator) reads the number
// of the call it is serving. So "the N-th call" means the same call to the ledger, to fault
// injection and in every report, even for calls that an outer layer rejected before they
// reached the inner one.
//
// Not synchronized: the stack's calls must be serialized (TrackingDeviceAllocator holds one lock).
#pragma once

#include <cstdint>

namespace devplan {

class AllocationSequence {
 public:
  // Takes the next number (1-based) and makes it the current call's.
  uint64_t next() {
    current_ = ++count_;
    return current_;
  }
  // The number of the call being served; 0 before the first.
  uint64_t current() const { return current_; }
  // How many numbers were taken (the last one handed out).
  uint64_t count() const { return count_; }
  // Starts again at 1.
  void restart() {
    count_ = 0;
    current_ = 0;
  }

 private:
  uint64_t count_ = 0;
  uint64_t current_ = 0;
};

}  // namespace devplan
