// TrackingDeviceAllocator: a DeviceAllocator that keeps a ledger of every allocation, records
// misuse instead of crashing, injects faults and limits per-device capacity, over simulated or real
// (upstream) device memory. A facade over TrackingShardSet, TrackingSettings and MergedLedger;
// usage, report formats, memory, composition and threading: docs/tracking-allocator.md.
#pragma once

#include <array>
#include <atomic>
#include <bitset>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <mocks/allocation_sequence.h>
#include <mocks/block_store_device_allocator.h>
#include <mocks/copy_direction.h>
#include <mocks/failure_injecting_device_allocator.h>
#include <mocks/ledger_device_allocator.h>
#include <mocks/ledger_records.h>
#include <mocks/limiting_device_allocator.h>
#include <mocks/misuse_detection.h>
#include <mocks/statistics_device_allocator.h>
#include <mocks/tracking_settings.h>
#include <mocks/tracking_shard.h>
#include <mocks/tracking_shard_set.h>
#include <mocks/validating_device_allocator.h>
#include <runtime_ext/core/device_allocator.h>

namespace devplan {

// AllocationRecord, FailedAllocation, MisuseKind, MisuseRecord, misuse_kind_name() and
// format_allocation() are in mocks/ledger_records.h, CopyDirection in mocks/copy_direction.h,
// DeviceAllocationStats in mocks/statistics_device_allocator.h (all included here).

class TrackingDeviceAllocator : public DeviceAllocator {
 public:
  static constexpr uint8_t kFreshPattern = BlockStoreDeviceAllocator::kFreshPattern;
  static constexpr uint8_t kFreedPattern = BlockStoreDeviceAllocator::kFreedPattern;
  static constexpr size_t kDefaultQuarantineBytes =
      BlockStoreDeviceAllocator::kDefaultQuarantineBytes;
  static constexpr size_t kDefaultQuarantineBlocks =
      BlockStoreDeviceAllocator::kDefaultQuarantineBlocks;
  // How many released blocks (out of the quarantine) stay known as freed.
  static constexpr size_t kRememberedReleases = BlockRegistry::kRememberedReleases;
  // Larger alignments are InvalidArgument (a GPU allocator gives 256; this is generous).
  static constexpr size_t kMaxAlignment = ValidatingDeviceAllocator::kMaxAlignment;
  // Default limit on one allocation's size, so that a corrupt size cannot exhaust the host.
  static constexpr uint64_t kDefaultMaxAllocationBytes =
      LimitingDeviceAllocator::kDefaultMaxAllocationBytes;
  static constexpr int kNumSimulatedIndices = kMaxDeviceIndex + 1;

  // Serves `type` (CUDA by default); every index 0..127 exists until restricted.
  explicit TrackingDeviceAllocator(DeviceType type = DeviceType::CUDA);
  // Serves `upstream`'s device type with its memory; the upstream must outlive this allocator.
  explicit TrackingDeviceAllocator(DeviceAllocator* upstream);
  // Frees every block it still holds, live or quarantined: the allocator must outlive every
  // buffer it allocated and every registration of it (see DeviceAllocatorRegistry).
  ~TrackingDeviceAllocator() override;
  TrackingDeviceAllocator(const TrackingDeviceAllocator&) = delete;
  TrackingDeviceAllocator& operator=(const TrackingDeviceAllocator&) = delete;

  // --- DeviceAllocator -----------------------------------------------------------------------

  // Returns a pointer aligned to `alignment` to `nbytes` of simulated memory on cuda:`index`
  // (a unique non-null pointer for 0 bytes), recorded in the ledger with the current owner.
  // Errors, in this order of checks (each also recorded as a FailedAllocation):
  //   InvalidArgument: alignment zero, not a power of two or above kMaxAlignment; negative
  //     index; an index that restrict_devices()/set_device_count() excluded.
  //   MemoryAllocationFailed: an injected fault (fail_allocation_at, fail_allocations_from,
  //     fail_allocations_on); capacity exceeded; nbytes above max_allocation_bytes(); the host
  //     could not provide the memory (always so above 1 TiB, which is never requested).
  Result<void*> allocate(size_t nbytes, DeviceIndex index,
                         size_t alignment = kDefaultAlignment) override;

  // Frees a block from allocate(). Never fails: null is ignored (as cudaFree(nullptr) is);
  // a double free, an unknown or interior pointer or a wrong index is recorded as misuse.
  void deallocate(void* ptr, DeviceIndex index) override;

  // Copies into a live block after checking that [dst, dst + nbytes) lies inside one live
  // block allocated on `index` and that `src` is not device memory. A zero-byte copy does
  // nothing and succeeds. Errors: InvalidArgument for a null host pointer or any misuse (then
  // recorded and nothing is copied); Internal for an injected copy fault (checked after misuse).
  Error copy_host_to_device(void* dst, const void* src, size_t nbytes, DeviceIndex index) override;

  // The mirror of copy_host_to_device for reading [src, src + nbytes) out of a live block.
  Error copy_device_to_host(void* dst, const void* src, size_t nbytes, DeviceIndex index) override;

  DeviceType device_type() const override { return type_; }

  // --- Fault injection and simulation settings (kept by reset()) ------------------------------

  // Makes the allocate() call with sequence number `seq` fail with MemoryAllocationFailed.
  // May be called for several numbers; 0 is ignored.
  void fail_allocation_at(uint64_t seq);
  // Makes every allocate() call with sequence number >= `seq` fail; 0 turns this off.
  void fail_allocations_from(uint64_t seq);
  // Makes every allocation on `index` fail. InvalidArgument for a negative index.
  Error fail_allocations_on(DeviceIndex index);
  // Makes copies in `directions` fail with Internal; CopyDirection::None turns this off.
  void fail_copies(CopyDirection directions);
  // Removes every fault set by the four functions above (capacities and devices stay).
  void clear_faults();

  // Limits live bytes on `index` to `bytes`: an allocation that would take live bytes above it
  // fails with MemoryAllocationFailed. InvalidArgument for a negative index.
  Error set_capacity(DeviceIndex index, uint64_t bytes);
  // Removes every capacity limit.
  void clear_capacities();

  // Only these indices exist; allocating on another is InvalidArgument. InvalidArgument (and
  // no change) when the list holds a negative index.
  Error restrict_devices(const std::vector<DeviceIndex>& indices);
  // Only indices 0..count-1 exist. InvalidArgument (and no change) unless 0 <= count <= 128.
  Error set_device_count(int count);
  // Every index 0..127 exists again (the default).
  void allow_all_devices();
  // True when allocate() accepts `index` (ignoring faults and capacity).
  bool is_device_available(DeviceIndex index) const;

  // Sets the quarantine's limits; blocks beyond them are released oldest first, at once.
  // (0, 0) disables the quarantine: freed blocks go back to the system immediately.
  void set_quarantine_limits(size_t max_bytes, size_t max_blocks);
  // Whether new blocks are filled with kFreshPattern and quarantined ones with kFreedPattern
  // (on by default). Runs that only load and unload, and read no device byte, may turn it off:
  // the fills are most of the cost of a large allocation.
  void set_fill_patterns(bool on);
  // Whether allocate() and a good deallocate() take the fused path (on by default): one function
  // that does every layer's work for a call no layer would refuse (see FusedTrackingPath in
  // mocks/fused_tracking_path.h). Off, every call goes through the layers one by one. The ledger,
  // the reports, the statistics and the blocks' bytes are the same either way: the switch is for
  // tests that compare the two paths and benchmarks that measure the difference.
  void set_fused_path(bool on);
  // How blocks allocated from now on are backed: DeviceBacking::Host (the default: host memory
  // of the block's size, filled with the patterns) or DeviceBacking::Unbacked (an address range
  // with no host memory; copies back just the pages they touch; see BlockStoreDeviceAllocator).
  // Every check of the ledger applies to both. Runs that only load and unload (simulate) use
  // Unbacked, so a program with 64 GiB of planned device memory loads in a few MB of RAM.
  // Ignored with an upstream (always DeviceBacking::Device).
  void set_backing(DeviceBacking backing);
  DeviceBacking backing() const;
  // The allocator real device blocks come from; nullptr for simulated devices.
  DeviceAllocator* upstream() const { return upstream_; }
  // Host bytes that copies have backed inside unbacked blocks (live and quarantined ones).
  size_t unbacked_backed_bytes() const;
  // Sets the largest size one allocation may have (default kDefaultMaxAllocationBytes).
  void set_max_allocation_bytes(uint64_t bytes);
  uint64_t max_allocation_bytes() const;

  // --- Ledger and reports ---------------------------------------------------------------------

  // Every successful allocation, in sequence order, live and freed.
  std::vector<AllocationRecord> ledger() const;
  // The successful allocations from the `first`-th (0-based) on: ledger() without copying the
  // start, for callers that look at one step at a time.
  std::vector<AllocationRecord> ledger_from(size_t first) const;
  // The number of successful allocations so far (ledger().size()).
  size_t ledger_size() const;
  // The live allocations, in sequence order.
  std::vector<AllocationRecord> live_allocations() const;
  // Every misuse, in the order it happened.
  std::vector<MisuseRecord> misuse() const;
  // Every failed allocate() call, in sequence order.
  std::vector<FailedAllocation> failed_allocations() const;
  // Counters for `index`; all zero for an index never used (or negative).
  DeviceAllocationStats stats(DeviceIndex index) const;
  // The number of allocate() calls so far (the last sequence number handed out).
  uint64_t allocate_calls() const;
  size_t live_count() const;
  bool has_leaks() const;
  bool has_misuse() const;

  // One format_allocation() line per live allocation, in sequence order.
  std::vector<std::string> leak_report_lines() const;
  // One line per misuse record (its message), in order.
  std::vector<std::string> misuse_report_lines() const;
  // The lines above, each followed by '\n'; "" when there are none.
  std::string leak_report() const;
  std::string misuse_report() const;

  // Reads `nbytes` at `ptr` into `out` from a live or quarantined block, bypassing the misuse
  // checks and recording nothing: lets a test see the poison pattern of a freed block.
  // NotFound when `ptr` is not inside a block whose memory is still held; InvalidArgument when
  // the range runs past the block's end or `out` is null with nbytes > 0.
  Error peek(const void* ptr, size_t nbytes, void* out) const;
  // True when `ptr` is the start of a freed block still held in the quarantine.
  bool is_quarantined(const void* ptr) const;
  // For a fault handler (ScopedHostAccessFaultReport): when `ptr` lies inside an unbacked block
  // (live or quarantined), "<ptr>: byte N of <the block's format_allocation() text>"; else "".
  // Never blocks: a shard whose lock is held is skipped.
  std::string describe_unbacked_address(const void* ptr) const;

  // Forgets all recorded state: releases the quarantine, clears the ledger, misuse, failed
  // allocations and statistics, and restarts sequence numbers at 1. Fault, capacity, device and
  // quarantine settings are kept. InvalidState, changing nothing, while any allocation is live
  // (their owners would later free pointers the allocator no longer knows).
  Error reset();

 private:
  void deallocate_slow(void* ptr, DeviceIndex index);
  Error copy(const DeviceCopy& copy);
  void record_misuse(const TrackingShardSet::Locked& all, DetectedMisuse misuse, DeviceIndex index,
                     const void* ptr);

  const DeviceType type_;
  DeviceAllocator* const upstream_ = nullptr;
  TrackingShardSet shards_;  // the per-device stacks, their locks, settings and misuse
};

}  // namespace devplan
