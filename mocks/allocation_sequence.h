// AllocationSequence: numbers allocate() calls 1, 2, 3, ... for a stack of allocator adaptors.
//
// The outermost layer (LedgerDeviceAllocator) takes a number for every call, successful or not,
// before it forwards the call; an inner layer (FailureInjectingDeviceAllocator) reads the number
// of the call it is serving. So "the N-th call" means the same call to the ledger, to fault
// injection and in every report, even for calls that an outer layer rejected before they
// reached the inner one.
//
// Several stacks may share one counter (TrackingDeviceAllocator: one stack per device, each with
// its own AllocationSequence over the allocator's counter), so that numbers are unique across
// them: each stack then knows its own current call, and count() is the shared total.
//
// The current call's number is not synchronized: a stack's calls must be serialized (each of
// TrackingDeviceAllocator's shards holds its own lock). The shared counter is atomic. While a
// sequence is its counter's only user (set_sole_user), next() takes a number with a plain load
// and store instead of a locked read-modify-write, which costs about as much as the rest of a
// fused allocate()'s own bookkeeping: saved in the common case of one device in use.
#pragma once

#include <atomic>
#include <cstdint>

namespace devplan {

class AllocationSequence {
 public:
  // Numbers with a counter of its own.
  AllocationSequence() : counter_(&own_counter_) {}
  // Numbers with `shared_counter`, which must outlive it.
  explicit AllocationSequence(std::atomic<uint64_t>* shared_counter) : counter_(shared_counter) {}
  AllocationSequence(const AllocationSequence&) = delete;
  AllocationSequence& operator=(const AllocationSequence&) = delete;

  // Takes the next number (1-based) and makes it the current call's.
  uint64_t next() {
    if (sole_user_) {
      current_ = counter_->load(std::memory_order_relaxed) + 1;
      counter_->store(current_, std::memory_order_relaxed);
    } else {
      current_ = counter_->fetch_add(1, std::memory_order_relaxed) + 1;
    }
    return current_;
  }
  // Whether no other sequence takes numbers from this one's counter until this is set to false.
  // The caller guarantees it, and makes the change visible to this sequence's next() calls (the
  // same lock around both: TrackingShardSet clears it under the shard's lock before another
  // shard starts numbering).
  void set_sole_user(bool sole) { sole_user_ = sole; }
  // The number of the call being served; 0 before the first.
  uint64_t current() const { return current_; }
  // How many numbers were taken (the last one handed out).
  uint64_t count() const { return counter_->load(std::memory_order_relaxed); }
  // Starts again at 1 (the shared counter too).
  void restart() {
    counter_->store(0, std::memory_order_relaxed);
    current_ = 0;
  }

 private:
  std::atomic<uint64_t> own_counter_{0};
  std::atomic<uint64_t>* const counter_;
  uint64_t current_ = 0;
  bool sole_user_ = false;
};

}  // namespace devplan
