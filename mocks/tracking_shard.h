// TrackingShard: one device index's part of a TrackingDeviceAllocator: the full stack of
// adaptors (ledger, statistics, validation, faults, limits, the block store) under a lock of its
// own, numbering its calls from the allocator's shared counter, and the fused path that takes
// the calls every layer would pass (FusedTrackingPath).
//
//   std::atomic<uint64_t> calls{0};
//   TrackingShard shard(DeviceType::CUDA, "TrackingDeviceAllocator", &calls);
//   std::lock_guard<std::mutex> lock(shard.mutex());
//   Result<void*> p = shard.allocate(48, 0, kDefaultAlignment);
//
// Why shards: a device's calls only touch that device's blocks, counters and limits, so threads
// working on different devices never wait for each other; the sequence counter is the one thing
// they share (an atomic). The layers are reachable one by one, so that the allocator can apply
// its settings to each (and replace the block store's configuration per shard). The ledger and
// the block store share one table of blocks, the ledger's BlockRegistry (see ShardBlockStore).
//
// Threading: hold mutex() around every call into the shard and its layers. Ownership:
// `sequence_counter` must outlive the shard; the block store frees every block it still holds
// when the shard is destroyed.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>

#include <mocks/allocation_sequence.h>
#include <mocks/block_registry.h>
#include <mocks/failure_injecting_device_allocator.h>
#include <mocks/fused_tracking_path.h>
#include <mocks/ledger_device_allocator.h>
#include <mocks/limiting_device_allocator.h>
#include <mocks/shard_block_store.h>
#include <mocks/statistics_device_allocator.h>
#include <mocks/validating_device_allocator.h>

namespace devplan {

class TrackingShard {
 public:
  // With an `upstream`, the bottom layer takes its blocks from it (a real device).
  TrackingShard(DeviceType type, const char* name, std::atomic<uint64_t>* sequence_counter,
                DeviceAllocator* upstream = nullptr);
  TrackingShard(const TrackingShard&) = delete;
  TrackingShard& operator=(const TrackingShard&) = delete;

  std::mutex& mutex() const { return mu_; }

  // The stack's allocate(): the fused path when it takes the call, else the layers.
  Result<void*> allocate(size_t nbytes, DeviceIndex index, size_t alignment) {
    if (fused_on_) {
      if (void* ptr = fused_.allocate(nbytes, index, alignment)) return ptr;
    }
    return ledger_.allocate(nbytes, index, alignment);
  }
  // LedgerDeviceAllocator::deallocate_if_live_on(), fused when the fused path is on.
  bool deallocate_if_live_on(void* ptr, DeviceIndex index) {
    return fused_on_ ? fused_.free_if_live_on(ptr, index)
                     : ledger_.deallocate_if_live_on(ptr, index);
  }
  // Whether allocate() and deallocate_if_live_on() may take the fused path (the default), or
  // always go through the layers (the reports are the same either way).
  void set_fused_path(bool on) { fused_on_ = on; }
  // Whether this shard is the only one numbering calls from the shared counter (see
  // AllocationSequence::set_sole_user); TrackingShardSet sets it under this shard's lock.
  void set_sole_numbering(bool sole) { sequence_.set_sole_user(sole); }

  // The layers, outermost first.
  LedgerDeviceAllocator& ledger() { return ledger_; }
  const LedgerDeviceAllocator& ledger() const { return ledger_; }
  StatisticsDeviceAllocator& stats() { return stats_; }
  const StatisticsDeviceAllocator& stats() const { return stats_; }
  ValidatingDeviceAllocator& devices() { return devices_; }
  FailureInjectingDeviceAllocator& faults() { return faults_; }
  LimitingDeviceAllocator& limits() { return limits_; }
  ShardBlockStore& store() { return store_; }
  const ShardBlockStore& store() const { return store_; }

 private:
  mutable std::mutex mu_;        // serializes every call into the stack below
  AllocationSequence sequence_;  // shared by the ledger (numbers) and fault injection (reads)
  BlockRegistry blocks_;         // the ledger's blocks, which are also the block store's table
  // The layers, innermost first (each wraps the one declared before it).
  ShardBlockStore store_;
  LimitingDeviceAllocator limits_;
  FailureInjectingDeviceAllocator faults_;
  ValidatingDeviceAllocator devices_;
  StatisticsDeviceAllocator stats_;
  LedgerDeviceAllocator ledger_;
  FusedTrackingPath fused_;
  bool fused_on_ = true;
};

}  // namespace devplan
