// TrackingShard: one device index's part of a TrackingDeviceAllocator: the full stack of
// adaptors (ledger, statistics, validation, faults, limits, the block store) under a lock of its
// own, numbering its calls from the allocator's shared counter.
//
//   std::atomic<uint64_t> calls{0};
//   TrackingShard shard(DeviceType::CUDA, "TrackingDeviceAllocator", &calls);
//   std::lock_guard<std::mutex> lock(shard.mutex());
//   Result<void*> p = shard.ledger().allocate(48, 0, kDefaultAlignment);
//
// Why shards: a device's calls only touch that device's blocks, counters and limits, so threads
// working on different devices never wait for each other; the sequence counter is the one thing
// they share (an atomic). The layers are reachable one by one, so that the allocator can apply
// its settings to each (and replace the host layer's configuration per shard).
//
// Threading: hold mutex() around every call into the layers. Ownership: `sequence_counter` must
// outlive the shard; the host layer frees every block it still holds when the shard is destroyed.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>

#include <mocks/allocation_sequence.h>
#include <mocks/block_store_device_allocator.h>
#include <mocks/failure_injecting_device_allocator.h>
#include <mocks/ledger_device_allocator.h>
#include <mocks/limiting_device_allocator.h>
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

  // The layers, outermost first.
  LedgerDeviceAllocator& ledger() { return ledger_; }
  const LedgerDeviceAllocator& ledger() const { return ledger_; }
  StatisticsDeviceAllocator& stats() { return stats_; }
  const StatisticsDeviceAllocator& stats() const { return stats_; }
  ValidatingDeviceAllocator& devices() { return devices_; }
  FailureInjectingDeviceAllocator& faults() { return faults_; }
  LimitingDeviceAllocator& limits() { return limits_; }
  BlockStoreDeviceAllocator& host() { return host_; }
  const BlockStoreDeviceAllocator& host() const { return host_; }

 private:
  mutable std::mutex mu_;  // serializes every call into the stack below
  // The layers, innermost first (each wraps the one declared before it).
  AllocationSequence sequence_;  // shared by the ledger (numbers) and fault injection (reads)
  BlockStoreDeviceAllocator host_;
  LimitingDeviceAllocator limits_;
  FailureInjectingDeviceAllocator faults_;
  ValidatingDeviceAllocator devices_;
  StatisticsDeviceAllocator stats_;
  LedgerDeviceAllocator ledger_;
};

}  // namespace devplan
