// FusedTrackingPath: a TrackingShard's allocate() and good free as one non-virtual function each,
// doing the work of every layer of the stack (ledger, statistics, validation, faults, limits,
// block store) on the layers' own state, in the layers' order.
//
//   FusedTrackingPath fused(type, sequence, blocks, store, limits, faults, devices, stats);
//   if (void* p = fused.allocate(48, 0, 16)) ...              // else: the layers take the call
//   if (!fused.free_if_live_on(p, 0)) ...                     // else: the misuse path
//
// Why: an allocate/free pair through the layers costs a virtual call and a Result per layer and
// direction; most calls pass every check, and for them the layers' work is a few counters, one
// host block and one ledger entry (the ledger's BlockRegistry is also the block store's table:
// ShardBlockStore). So the fused path asks each layer's check inline, and takes the call only
// when none would refuse it and the block is host memory; otherwise it changes nothing and
// returns nullptr, and the layers take the call, so every failure (its FailedAllocation, its
// message, its count) comes from the layers as before. A taken call leaves exactly the state the
// layers would have left: the same sequence number, ledger entry, counters and quarantine, so the
// two paths can alternate call by call (a fault set between two calls, a free of a block the
// other path allocated) and every report is the same.
//
// Threading: as the layers (the shard's lock). The layers must outlive it.
#pragma once

#include <cstddef>

#include <mocks/allocation_sequence.h>
#include <mocks/block_registry.h>
#include <mocks/failure_injecting_device_allocator.h>
#include <mocks/limiting_device_allocator.h>
#include <mocks/shard_block_store.h>
#include <mocks/statistics_device_allocator.h>
#include <mocks/validating_device_allocator.h>

namespace devplan {

class FusedTrackingPath {
 public:
  FusedTrackingPath(DeviceType type, AllocationSequence& sequence, BlockRegistry& blocks,
                    ShardBlockStore& store, LimitingDeviceAllocator& limits,
                    const FailureInjectingDeviceAllocator& faults,
                    const ValidatingDeviceAllocator& devices, StatisticsDeviceAllocator& stats)
      : type_(type),
        sequence_(sequence),
        blocks_(blocks),
        store_(store),
        limits_(limits),
        faults_(faults),
        devices_(devices),
        stats_(stats) {}

  // The stack's allocate() when no layer would refuse the call and the block is host memory:
  // the block (numbered, counted, in the ledger with this thread's owner). nullptr, with nothing
  // changed, otherwise: the layers take the call then.
  void* allocate(size_t nbytes, DeviceIndex index, size_t alignment);

  // LedgerDeviceAllocator::deallocate_if_live_on() and every layer's part of the free: frees the
  // live block starting at `ptr` allocated on `index` and returns true; false, with nothing
  // changed, for any other pointer.
  bool free_if_live_on(void* ptr, DeviceIndex index);

 private:
  const DeviceType type_;
  AllocationSequence& sequence_;
  BlockRegistry& blocks_;
  ShardBlockStore& store_;
  LimitingDeviceAllocator& limits_;
  const FailureInjectingDeviceAllocator& faults_;
  const ValidatingDeviceAllocator& devices_;
  StatisticsDeviceAllocator& stats_;
};

}  // namespace devplan
