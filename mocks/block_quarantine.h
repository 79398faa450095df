// BlockQuarantine: the freed blocks that BlockStoreDeviceAllocator keeps before their memory goes
// back to the system, oldest first, bounded by a block count and a byte total. Keeping a freed
// block a while means its address is not handed out again while a stale pointer to it may still
// be around, so misuse through that pointer is still recognised as misuse of that block.
#pragma once

#include <cstddef>
#include <deque>

namespace devplan {

class BlockQuarantine {
 public:
  struct Entry {
    const void* ptr = nullptr;
    size_t size = 0;
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
    entries_.push_back(entry);
    bytes_ += entry.size;
  }

  // Takes out the oldest entries beyond the limits, calling release(entry) on each in order.
  template <typename Release>
  void evict_over_limits(Release&& release) {
    while (!entries_.empty() && (entries_.size() > max_blocks_ || bytes_ > max_bytes_)) {
      pop_oldest(release);
    }
  }

  // Takes out every entry, oldest first.
  template <typename Release>
  void evict_all(Release&& release) {
    while (!entries_.empty()) pop_oldest(release);
  }

 private:
  template <typename Release>
  void pop_oldest(Release& release) {
    const Entry oldest = entries_.front();
    entries_.pop_front();
    bytes_ -= oldest.size;
    release(oldest);
  }

  std::deque<Entry> entries_;
  size_t bytes_ = 0;
  size_t max_bytes_;
  size_t max_blocks_;
};

}  // namespace devplan
