// BlockRegistry: every block a LedgerDeviceAllocator handed out, in sequence order, with one
// address map that finds the live or freed block an address falls in.
//
// A freed block stays known as freed (so double frees and stale copies are recognised) while its
// memory is held (in the quarantine below the ledger), and after that until a new block overlaps
// its address or kRememberedReleases more blocks have had their memory released after it; so the
// map stays bounded however long the ledger lives. The block list itself grows by one per
// allocation until clear().
//
// Invariant: the footprints (size, at least 1 byte) of all entries of the address map are
// pairwise disjoint: live and held blocks are distinct host allocations, and a released block's
// entry is dropped as soon as a new block overlaps it. So the block containing an address is the
// last one starting at or before it, and one map serves live and freed blocks alike.
//
// Cost: why one map. An allocate/free pair is one hinted insert, one find and (once the window
// is full) one erase by iterator; the erased node is kept for the next insert. The exact-address
// and containing lookups are O(log n) in the live, held and remembered blocks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <vector>

#include <mocks/ledger_records.h>

namespace devplan {

class BlockRegistry {
 public:
  static constexpr size_t kRememberedReleases = 4096;

  struct Block {
    AllocationRecord record;
    bool memory_held = true;  // false once the memory went back to the system
  };

  // Adds a live block, forgetting the released blocks whose addresses it takes.
  void add(AllocationRecord record);
  // Marks the live block starting at `ptr` freed (memory still held); nullptr when none starts
  // there.
  const Block* free_live(const void* ptr);
  // free_live() for a block allocated on `index` only; nullptr (and no change) for any other.
  const Block* free_live_on(const void* ptr, DeviceIndex index);
  // Notes that the freed block starting at `ptr` holds no memory any more.
  void mark_released(const void* ptr);

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
  using AddressMap = std::map<uintptr_t, size_t>;  // start address -> index in blocks_

  static uintptr_t footprint(const Block& block);
  // Marks the live block of `it` freed.
  const Block* free_entry(AddressMap::iterator it);
  // The block whose footprint contains `addr`, whatever its state, or nullptr.
  const Block* containing(const void* addr) const;
  // Takes block `index`'s entry out of the map, keeping its node for the next add().
  void unmap(size_t index);
  void remember_release(size_t block_index);
  // The index of the freed block at `ptr` whose memory is held, taken off held_; kNone if none.
  size_t take_held(const void* ptr);

  static constexpr size_t kNone = SIZE_MAX;

  std::deque<Block> blocks_;  // every block, in sequence order
  // Per block: its entry in by_address_, or by_address_.end() when it has none any more.
  std::deque<AddressMap::iterator> entries_;
  AddressMap by_address_;        // live, held and remembered released blocks
  AddressMap::node_type spare_;  // the last unmapped node: saves an allocation in add()
  std::deque<size_t> released_;  // released blocks still in by_address_, oldest first
  std::deque<size_t> held_;      // freed blocks in the order freed; some may be released since
  size_t live_count_ = 0;
};

}  // namespace devplan
