// LedgerDeviceAllocator: the tracking layer. It numbers every allocate() call (AllocationSequence),
// keeps a ledger of every successful one (AllocationRecord, with the current allocation owner)
// and a record of every failed one (FailedAllocation), and catches misuse (MisuseRecord): bad
// frees are recorded and not forwarded; bad copies are recorded, not forwarded, and return
// InvalidArgument with the report line in the message. Misuse never touches memory.
//
//   BlockStoreDeviceAllocator host;
//   LedgerDeviceAllocator ledger(&host);
//   host.set_release_listener([&](const void* p) { ledger.memory_released(p); });
//
// A good free goes upstream sized and with the block's own device index, whatever index the
// caller named (a wrong-device free is recorded, and still frees the block). A freed block counts
// as still holding memory (for peek and the host-overlap check) until memory_released() is called
// for it: wire it to the release listener of the layer that quarantines
// (BlockStoreDeviceAllocator). A zero-byte copy succeeds without any check; a null host pointer is
// InvalidArgument, not misuse.
//
// Threading and ownership: see DeviceAllocatorAdaptor; a shared sequence must outlive it.
#pragma once

#include <string>
#include <vector>

#include <mocks/allocation_sequence.h>
#include <mocks/block_registry.h>
#include <mocks/device_allocator_adaptor.h>
#include <mocks/ledger_records.h>
#include <mocks/misuse_detection.h>

namespace devplan {

class LedgerDeviceAllocator : public DeviceAllocatorAdaptor {
 public:
  // Numbers calls with `sequence` (shared with inner layers), or with one of its own; keeps its
  // blocks in `blocks` (shared with the block store below it: ShardBlockStore), or in its own.
  explicit LedgerDeviceAllocator(DeviceAllocator* upstream, AllocationSequence* sequence = nullptr,
                                 std::string name = "LedgerDeviceAllocator",
                                 BlockRegistry* blocks = nullptr);

  Result<void*> allocate(size_t nbytes, DeviceIndex index,
                         size_t alignment = kDefaultAlignment) override;
  void deallocate(void* ptr, DeviceIndex index) override;
  // From an outer layer: checked exactly as deallocate(ptr, index).
  void deallocate_sized(void* ptr, size_t nbytes, DeviceIndex index) override;
  std::optional<LiveBlock> find_live_block(const void* ptr) const override;
  // Frees `ptr` as deallocate(ptr, index) does when it starts a live block allocated on `index`
  // and returns true; otherwise records nothing, changes nothing and returns false (for a caller
  // that looks elsewhere before it calls the free misuse: one lookup on the good path).
  bool deallocate_if_live_on(void* ptr, DeviceIndex index);

  // The memory of the freed block starting at `ptr` went back to the system.
  void memory_released(const void* ptr) { blocks_->mark_released(ptr); }

  const BlockRegistry& blocks() const { return *blocks_; }
  const std::vector<MisuseRecord>& misuse() const { return misuse_; }
  const std::vector<FailedAllocation>& failed_allocations() const { return failed_; }
  // The number of allocate() calls numbered so far.
  uint64_t allocate_calls() const { return sequence_->count(); }
  // The live block containing `ptr`, or the freed one if its memory is still held; nullptr
  // otherwise.
  const BlockRegistry::Block* find_held(const void* ptr) const;
  // InvalidState "<name>::reset: 2 allocations are still live (#1, #3)", or success.
  Error check_nothing_live() const;
  // Forgets every block, misuse and failure, and restarts the sequence at 1.
  void clear();

 protected:
  Error copy(const DeviceCopy& copy) override;

 private:
  void record_failure(uint64_t seq, size_t nbytes, DeviceIndex index, size_t alignment,
                      const Error& error);
  void record_misuse(DetectedMisuse misuse, DeviceIndex index, const void* ptr);

  AllocationSequence own_sequence_;
  AllocationSequence* const sequence_;
  BlockRegistry own_blocks_;
  BlockRegistry* const blocks_;
  std::vector<MisuseRecord> misuse_;
  std::vector<FailedAllocation> failed_;
};

}  // namespace devplan
