// BlockRegistrySet: the blocks of several BlockRegistry objects (one per shard of a
// TrackingDeviceAllocator) answering the lookups of misuse detection as if they were one.
//
//   BlockRegistrySet one(ledger.blocks());                   // a single registry
//   BlockRegistrySet all(registries.data(), registries.size());
//   const BlockRegistry::Block* b = all.live_containing(ptr);
//
// Live and held blocks of different registries never overlap (they are distinct host
// allocations), but a released block remembered by one registry may overlap a newer block of
// another: so a live block wins over a freed one, and among freed blocks the latest (highest
// sequence number) wins, as one registry would have forgotten the older one.
//
// Not synchronized: the caller holds the lock of every registry in the set. The set refers to
// the registries (and, for a set of many, to the caller's array): they must outlive it.
#pragma once

#include <cstddef>

#include <mocks/block_registry.h>

namespace devplan {

class BlockRegistrySet {
 public:
  // A set of one (implicit, so that a single registry is passed where a set is expected).
  BlockRegistrySet(const BlockRegistry& one) : one_(&one), registries_(&one_), count_(1) {}
  BlockRegistrySet(const BlockRegistry* const* registries, size_t count)
      : registries_(registries), count_(count) {}
  BlockRegistrySet(const BlockRegistrySet&) = delete;
  BlockRegistrySet& operator=(const BlockRegistrySet&) = delete;

  using Block = BlockRegistry::Block;

  const Block* live_at(const void* ptr) const {
    return first_of([&](const BlockRegistry& r) { return r.live_at(ptr); });
  }
  const Block* freed_at(const void* ptr) const {
    return latest_of([&](const BlockRegistry& r) { return r.freed_at(ptr); });
  }
  const Block* live_containing(const void* addr) const {
    return first_of([&](const BlockRegistry& r) { return r.live_containing(addr); });
  }
  const Block* freed_containing(const void* addr) const {
    return latest_of([&](const BlockRegistry& r) { return r.freed_containing(addr); });
  }
  // A block still holding memory that overlaps [start, start + nbytes); a live one first.
  const Block* held_overlapping(const void* start, size_t nbytes) const {
    const Block* freed = nullptr;
    for (size_t i = 0; i < count_; ++i) {
      const Block* block = registries_[i]->held_overlapping(start, nbytes);
      if (block != nullptr && block->live) return block;
      if (freed == nullptr) freed = block;
    }
    return freed;
  }

 private:
  template <typename Lookup>
  const Block* first_of(Lookup&& lookup) const {
    for (size_t i = 0; i < count_; ++i) {
      if (const Block* block = lookup(*registries_[i])) return block;
    }
    return nullptr;
  }
  template <typename Lookup>
  const Block* latest_of(Lookup&& lookup) const {
    const Block* latest = nullptr;
    for (size_t i = 0; i < count_; ++i) {
      const Block* block = lookup(*registries_[i]);
      if (block != nullptr && (latest == nullptr || block->seq > latest->seq)) {
        latest = block;
      }
    }
    return latest;
  }

  const BlockRegistry* one_ = nullptr;
  const BlockRegistry* const* registries_;
  size_t count_;
};

}  // namespace devplan
