// BlockQuarantine: the freed blocks that a block store (BlockStoreDeviceAllocator,
// ShardBlockStore) keeps before their memory goes back to the system, oldest first, bounded by a
// block count and a byte total. Keeping a freed block a while means its address is not handed
// out again while a stale pointer to it may still be around, so misuse through that pointer is
// still recognised as misuse of that block.
//
// The entries are a ring in one array that doubles when full (a FIFO that a full quarantine
// pushes to and pops from on every free): no allocation per entry, and the entries in use stay
// in one contiguous, cache-resident array.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace devplan {

class BlockQuarantine {
 public:
  struct Entry {
    const void* ptr = nullptr;
    size_t size = 0;   // the host bytes it holds
    size_t block = 0;  // the owner's handle of the block (ShardBlockStore: its ledger index)
  };

  BlockQuarantine(size_t max_bytes, size_t max_blocks)
      : max_bytes_(max_bytes), max_blocks_(max_blocks) {}

  // (0, 0), or any block count 0, keeps nothing.
  void set_limits(size_t max_bytes, size_t max_blocks) {
    max_bytes_ = max_bytes;
    max_blocks_ = max_blocks;
  }
  // Whether a block of `size` bytes may be kept at all (a larger one is released at once).
  bool admits(size_t size) const { return max_blocks_ != 0 && size <= max_bytes_; }

  void push(const Entry& entry) {
    if (count_ == ring_.size()) grow();
    ring_[(head_ + count_) & (ring_.size() - 1)] = entry;
    ++count_;
    bytes_ += entry.size;
  }

  // Takes out the oldest entries beyond the limits, calling release(entry) on each in order.
  template <typename Release>
  void evict_over_limits(Release&& release) {
    while (count_ != 0 && (count_ > max_blocks_ || bytes_ > max_bytes_)) pop_oldest(release);
  }

  // Takes out every entry, oldest first.
  template <typename Release>
  void evict_all(Release&& release) {
    while (count_ != 0) pop_oldest(release);
  }

 private:
  static constexpr size_t kInitialCapacity = 16;  // a power of two, as every later capacity

  template <typename Release>
  void pop_oldest(Release& release) {
    const Entry oldest = ring_[head_];
    head_ = (head_ + 1) & (ring_.size() - 1);
    --count_;
    bytes_ -= oldest.size;
    release(oldest);
  }
  // Doubles the ring, the entries in order from its start.
  void grow() {
    std::vector<Entry> larger(ring_.empty() ? kInitialCapacity : 2 * ring_.size());
    for (size_t i = 0; i < count_; ++i) larger[i] = ring_[(head_ + i) & (ring_.size() - 1)];
    ring_ = std::move(larger);
    head_ = 0;
  }

  std::vector<Entry> ring_;  // entries [head_, head_ + count_) modulo its size, oldest first
  size_t head_ = 0;
  size_t count_ = 0;
  size_t bytes_ = 0;
  size_t max_bytes_;
  size_t max_blocks_;
};

}  // namespace devplan
