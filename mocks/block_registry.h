// BlockRegistry: every block a LedgerDeviceAllocator handed out, in sequence order, with the
// lookups that find the live or freed block at or around an address.
//
// A freed block stays known as freed (so double frees and stale copies are recognised) while its
// memory is held (in the quarantine below the ledger), and after that until a new block overlaps
// its address or kRememberedReleases more blocks have had their memory released after it; so the
// lookup structures stay bounded however long the ledger lives. The block list itself grows by
// one compact Block per allocation until clear().
//
// Cost: why two indexes. The allocate/free path only asks for the block starting at an address:
// a flat hash map (PointerMap) answers that in about one probe. The questions about addresses
// inside blocks (interior frees, copies, host ranges overlapping device memory) are rarer and
// use an address-ordered index that is brought up to date only when such a question comes (a
// sort of the blocks added since, merged in; they are the end of the block list, so nothing
// is kept per allocation to find them). A released block that a newer block overlaps is
// forgotten then, at the latest, and every lookup answers as if it had been forgotten at once:
// a newer block at the same start replaces it in the hash map, and the lookups that could see
// one starting elsewhere update the ordered index first.
//
// Invariant (of the ordered index, once up to date): the footprints (size, at least 1 byte) of
// its entries are pairwise disjoint: live and held blocks are distinct host allocations, and a
// released block overlapped by a newer one is dropped. So the block containing an address is the
// last one starting at or before it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <mocks/chunked_vector.h>
#include <mocks/ledger_records.h>
#include <mocks/pointer_map.h>
#include <runtime_ext/core/allocation_owner.h>

namespace devplan {

class BlockRegistry {
 public:
  static constexpr size_t kRememberedReleases = 4096;
  // What the index-based functions return for "no such block".
  static constexpr size_t kNoBlock = SIZE_MAX;

  // One successful allocation, compact: the owner is kept as a label and a buffer number, its
  // text is built by record().
  struct Block {
    uint64_t seq = 0;
    const void* ptr = nullptr;
    size_t size = 0;
    size_t alignment = 0;
    const std::string* owner_label = nullptr;  // kept alive by the registry; nullptr: none
    int64_t owner_buffer = AllocationOwner::kNoBuffer;
    Device device;
    bool live = true;         // false once deallocated
    bool memory_held = true;  // false once the memory went back to the system
    bool mapped = true;       // still found by address (live, held or remembered)

    // The block as the ledger reports it.
    AllocationRecord record() const;
    std::string owner() const { return AllocationOwner::text_of(owner_label, owner_buffer); }
  };

  // Adds a live block owned by `owner`, forgetting the released blocks whose addresses it takes.
  void add(uint64_t seq, const void* ptr, size_t size, size_t alignment, Device device,
           const AllocationOwner& owner);
  // Marks the live block starting at `ptr` freed (memory still held); nullptr when none starts
  // there.
  const Block* free_live(const void* ptr);
  // free_live() for a block allocated on `index` only; nullptr (and no change) for any other.
  const Block* free_live_on(const void* ptr, DeviceIndex index);
  // Notes that the freed block starting at `ptr` holds no memory any more.
  void mark_released(const void* ptr);

  // The same by index (for at()), for an owner that keeps the blocks' indices (ShardBlockStore:
  // the ledger's blocks are its table, so a free or a release finds its block without a lookup).
  // free_live_on(), returning the freed block's index, or kNoBlock (and no change).
  size_t free_live_index_on(const void* ptr, DeviceIndex index);
  // mark_released() of the freed block at `index`; nothing for a live or released one.
  void mark_released_at(size_t index);
  // The index of the block starting at `ptr` that the lookups still find, whatever its state;
  // kNoBlock when none does.
  size_t index_at(const void* ptr) const {
    const size_t* index = by_start_.find(ptr);
    return index == nullptr ? kNoBlock : *index;
  }
  // Calls f(block) for every block that still holds memory (live, or freed and not released).
  template <typename F>
  void for_each_held(F&& f) const {
    by_start_.for_each([&](const void*, size_t index) {
      const Block& block = blocks_[index];
      if (block.live || block.memory_held) f(block);
    });
  }

  // The live block starting at `ptr`, or nullptr.
  const Block* live_at(const void* ptr) const;
  // The freed block starting at `ptr`, or nullptr.
  const Block* freed_at(const void* ptr) const;
  // The live (or freed) block whose footprint contains `addr`, or nullptr.
  const Block* live_containing(const void* addr) const;
  const Block* freed_containing(const void* addr) const;
  // A block still holding memory (live or freed) that overlaps [start, start + nbytes), or nullptr;
  // a live one when there is one.
  const Block* held_overlapping(const void* start, size_t nbytes) const;

  size_t size() const { return blocks_.size(); }
  const Block& at(size_t i) const { return blocks_[i]; }
  size_t live_count() const { return live_count_; }
  // The live blocks, in sequence order.
  std::vector<const Block*> live_blocks() const;
  // Forgets every block.
  void clear();

 private:
  using Entry = std::pair<uintptr_t, size_t>;  // start address, index in blocks_

  static uintptr_t footprint(const Block& block);
  // The label to store for `owner`: one shared copy per distinct label text.
  const std::string* intern_label(const AllocationOwner& owner);
  const Block* free_index(size_t index);
  // The block whose footprint contains `addr`, whatever its state, or nullptr.
  const Block* containing(const void* addr) const;
  // Brings ordered_ up to date (merging in the blocks added since, dropping unmapped and
  // overlapped blocks).
  void update_ordered() const;
  void unmap(size_t index) const;
  void remember_release(size_t block_index);

  // Every block, in sequence order. Mutable: the ordered index forgets overlapped blocks lazily.
  mutable ChunkedVector<Block> blocks_;
  mutable PointerMap<size_t> by_start_;  // live, held and remembered blocks, by start
  mutable std::vector<Entry> ordered_;   // the same by address, as of the last update
  mutable size_t ordered_upto_ = 0;      // blocks_[ordered_upto_...] were added since then
  mutable bool ordered_stale_ = false;   // a block was added or unmapped since then
  // The last kRememberedReleases releases, a ring whose oldest entry is at released_next_ once
  // it is full (some may have been forgotten since: overlapped by a newer block).
  std::vector<size_t> released_;
  size_t released_next_ = 0;
  size_t live_count_ = 0;
  // Owner labels: kept alive for the blocks; the last one seen, to skip the lookup.
  std::vector<std::shared_ptr<const std::string>> labels_;
  std::shared_ptr<const std::string> last_owner_label_;
  const std::string* last_stored_label_ = nullptr;
};

}  // namespace devplan
