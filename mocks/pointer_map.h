// PointerMap: a flat open-addressing hash map from a non-null address to a small value, for the
// per-block lookups on the allocate/free path of TrackingDeviceAllocator's layers.
//
//   PointerMap<HostBlock> blocks;
//   blocks.insert(ptr, HostBlock{48, 16});
//   if (HostBlock* block = blocks.find(ptr)) ...
//   blocks.erase(ptr);
//
// Why not std::unordered_map: a block's insert, find and erase then cost a node allocation and a
// pointer chase each; here they are one hash and, almost always, one probe in a contiguous
// array. Linear probing with backward-shift deletion (no tombstones), load factor at most 1/2.
// Keys are addresses: 0 marks an empty slot, so the null pointer cannot be a key.
// Pointers returned by find() are invalidated by the next insert() or erase().
// Not synchronized.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace devplan {

template <typename Value>
class PointerMap {
 public:
  PointerMap() : slots_(kInitialSlots) {}

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // Adds `ptr` -> `value`, or replaces the value when `ptr` is already a key.
  void insert(const void* ptr, const Value& value) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    const uintptr_t key = reinterpret_cast<uintptr_t>(ptr);
    size_t i = home(key);
    while (slots_[i].key != 0 && slots_[i].key != key) i = next(i);
    if (slots_[i].key == 0) ++size_;
    slots_[i].key = key;
    slots_[i].value = value;
  }

  Value* find(const void* ptr) {
    const size_t i = slot_of(reinterpret_cast<uintptr_t>(ptr));
    return i == kMissing ? nullptr : &slots_[i].value;
  }
  const Value* find(const void* ptr) const {
    const size_t i = slot_of(reinterpret_cast<uintptr_t>(ptr));
    return i == kMissing ? nullptr : &slots_[i].value;
  }

  // Removes `ptr`; false when it was no key.
  bool erase(const void* ptr) {
    size_t hole = slot_of(reinterpret_cast<uintptr_t>(ptr));
    if (hole == kMissing) return false;
    // Backward shift: move each later entry of the probe run into the hole when its home slot
    // does not lie (cyclically) between the hole and its own slot.
    for (size_t i = next(hole); slots_[i].key != 0; i = next(i)) {
      const size_t h = home(slots_[i].key);
      const bool stays = hole <= i ? (hole < h && h <= i) : (hole < h || h <= i);
      if (stays) continue;
      slots_[hole] = std::move(slots_[i]);
      hole = i;
    }
    slots_[hole].key = 0;
    slots_[hole].value = Value{};
    --size_;
    return true;
  }

  // Calls f(ptr, value) for every entry, in no particular order.
  template <typename F>
  void for_each(F&& f) const {
    for (const Slot& slot : slots_) {
      if (slot.key != 0) f(reinterpret_cast<const void*>(slot.key), slot.value);
    }
  }

  void clear() {
    slots_.assign(kInitialSlots, Slot{});
    size_ = 0;
    shift_ = kInitialShift;
  }

 private:
  struct Slot {
    uintptr_t key = 0;
    Value value{};
  };
  static constexpr size_t kInitialSlots = 64;   // a power of two
  static constexpr int kInitialShift = 64 - 6;  // 64 - log2(kInitialSlots)
  static constexpr size_t kMissing = SIZE_MAX;

  size_t home(uintptr_t key) const {
    // Fibonacci hashing of the address without its always-zero low bits.
    return static_cast<size_t>(((key >> 4) * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  size_t next(size_t i) const { return (i + 1) & (slots_.size() - 1); }
  size_t slot_of(uintptr_t key) const {
    if (key == 0) return kMissing;
    for (size_t i = home(key);; i = next(i)) {
      if (slots_[i].key == key) return i;
      if (slots_[i].key == 0) return kMissing;
    }
  }
  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    --shift_;
    size_ = 0;
    for (Slot& slot : old) {
      if (slot.key != 0) insert(reinterpret_cast<const void*>(slot.key), slot.value);
    }
  }

  std::vector<Slot> slots_;
  size_t size_ = 0;
  int shift_ = kInitialShift;  // 64 - log2(slots_.size())
};

}  // namespace devplan
