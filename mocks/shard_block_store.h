// ShardBlockStore: the bottom of a TrackingShard's stack, BlockStoreDeviceAllocator's job (the
// blocks' memory, the fill patterns, the quarantine) with the ledger's BlockRegistry as its table
// of blocks instead of a map of its own.
//
//   BlockRegistry blocks;                                  // shared with the ledger above
//   ShardBlockStore store(DeviceType::CUDA, "TrackingDeviceAllocator", nullptr, &blocks);
//   LedgerDeviceAllocator ledger(&store, nullptr, "TrackingDeviceAllocator", &blocks);
//
// Why: the ledger already keeps one entry per block (start, size, alignment, device, state);
// a second map below it cost a hash insert, two lookups and an erase per allocation, and kept
// the two tables in step through a release listener. Here a block has one entry, the ledger's;
// the quarantine holds ledger indices, so a release finds its block without a lookup and marks
// it released in the ledger directly (BlockRegistry::mark_released_at). Memory is BlockMemory's,
// as in BlockStoreDeviceAllocator, so blocks hold the same bytes whichever store they are in.
//
// Contract with the layer above: every free it receives is of a block the ledger has just marked
// freed (sized, once per block); a free of a block the ledger still holds live is ignored. A
// successful allocate() is added to the ledger by the ledger itself. Blocks are quarantined and
// released exactly as BlockStoreDeviceAllocator does (same limits, same order, same fills).
//
// Threading: not synchronized (the shard's lock). The destructor frees every block that still
// holds memory, live ones included; the registry must outlive the store, and so must the upstream.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include <mocks/block_memory.h>
#include <mocks/block_quarantine.h>
#include <mocks/block_registry.h>
#include <mocks/block_store_device_allocator.h>
#include <mocks/sized_device_allocator.h>

namespace devplan {

class ShardBlockStore : public SizedDeviceAllocator {
 public:
  // `blocks` is the ledger's registry; with an `upstream`, blocks come from it.
  ShardBlockStore(DeviceType type, std::string name, DeviceAllocator* upstream,
                  BlockRegistry* blocks);
  ~ShardBlockStore() override;
  ShardBlockStore(const ShardBlockStore&) = delete;
  ShardBlockStore& operator=(const ShardBlockStore&) = delete;

  Result<void*> allocate(size_t nbytes, DeviceIndex index,
                         size_t alignment = kDefaultAlignment) override {
    return memory_.allocate(nbytes, index, alignment);
  }
  void deallocate(void* ptr, DeviceIndex index) override;
  void deallocate_sized(void* ptr, size_t nbytes, DeviceIndex index) override;
  std::optional<LiveBlock> find_live_block(const void* ptr) const override;
  Error copy_host_to_device(void* dst, const void* src, size_t nbytes, DeviceIndex index) override {
    return memory_.copy_host_to_device(dst, src, nbytes, index);
  }
  Error copy_device_to_host(void* dst, const void* src, size_t nbytes, DeviceIndex index) override {
    return memory_.copy_device_to_host(dst, src, nbytes, index);
  }
  DeviceType device_type() const override { return memory_.device_type(); }

  // BlockMemory::allocate_host(): a host-backed block without an error to build, or nullptr.
  void* allocate_host(size_t nbytes, size_t alignment) {
    return memory_.allocate_host(nbytes, alignment);
  }
  // Quarantines or releases the block at ledger index `block`, which the ledger just freed.
  void free_block(size_t block);

  // As BlockStoreDeviceAllocator's.
  void set_quarantine_limits(size_t max_bytes, size_t max_blocks);
  void set_fill_patterns(bool on) { memory_.set_fill_patterns(on); }
  void set_backing(DeviceBacking backing) { memory_.set_backing(backing); }
  DeviceBacking backing() const { return memory_.backing(); }
  size_t unbacked_backed_bytes() const { return memory_.unbacked_backed_bytes(); }
  DeviceAllocator* upstream() const { return memory_.upstream(); }
  // True when `block_start` starts a block (live or quarantined) with no host memory behind it.
  bool is_unbacked(const void* block_start) const { return memory_.is_unbacked(block_start); }
  // True when `ptr` is the start of a freed block still held in the quarantine.
  bool is_quarantined(const void* ptr) const;
  // Copies `nbytes` at `ptr` into `out` from `block`, live or quarantined, unpoisoning it for the
  // read. The caller checks the range.
  void read_held(const BlockRegistry::Block& block, const void* ptr, size_t nbytes,
                 void* out) const;
  // Releases every quarantined block, oldest first.
  void release_quarantine();

 private:
  // Gives the memory of the freed block at ledger index `block` back and tells the ledger.
  void release(size_t block);

  BlockMemory memory_;
  BlockRegistry* const blocks_;
  BlockQuarantine quarantine_{BlockStoreDeviceAllocator::kDefaultQuarantineBytes,
                              BlockStoreDeviceAllocator::kDefaultQuarantineBlocks};
};

}  // namespace devplan
