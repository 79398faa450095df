// RangeMinimum: the minimum of a fixed array over any index range, in linear memory and
// construction time. Internal to the planning library (greedy by breadth keys each item by the
// widest step of its lifetime).
//
// The array is cut into blocks of kBlock values; a range inside one block is scanned, any other
// is a block suffix, a block prefix and a sparse table over the whole blocks between. Unlike a
// sparse table over every value (n log n memory: 170 MB for two million steps), it stays at
// about three times the array.
//
//   RangeMinimum rmq({5, 2, 7, 1});
//   rmq.min(0, 2);   // 2
//   rmq.min(2, 3);   // 1
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace devplan {

class RangeMinimum {
 public:
  static constexpr size_t kBlock = 64;

  explicit RangeMinimum(std::vector<int32_t> values)
      : values_(std::move(values)), prefix_(values_.size()), suffix_(values_.size()) {
    const size_t n = values_.size();
    const size_t blocks = (n + kBlock - 1) / kBlock;
    std::vector<int32_t> block_min(blocks);
    for (size_t b = 0; b < blocks; ++b) {
      const size_t begin = b * kBlock, end = std::min(n, begin + kBlock);
      prefix_[begin] = values_[begin];
      for (size_t i = begin + 1; i < end; ++i) prefix_[i] = std::min(prefix_[i - 1], values_[i]);
      suffix_[end - 1] = values_[end - 1];
      for (size_t i = end - 1; i > begin; --i)
        suffix_[i - 1] = std::min(suffix_[i], values_[i - 1]);
      block_min[b] = prefix_[end - 1];
    }
    table_.push_back(std::move(block_min));
    for (size_t w = 1; (size_t{1} << w) <= blocks; ++w) {
      const std::vector<int32_t>& prev = table_.back();
      std::vector<int32_t> next(blocks - (size_t{1} << w) + 1);
      for (size_t b = 0; b < next.size(); ++b) {
        next[b] = std::min(prev[b], prev[b + (size_t{1} << (w - 1))]);
      }
      table_.push_back(std::move(next));
    }
  }

  // The minimum of values[first..last], 0 <= first <= last < size.
  int32_t min(size_t first, size_t last) const {
    const size_t fb = first / kBlock, lb = last / kBlock;
    if (fb == lb) {
      return *std::min_element(values_.begin() + static_cast<std::ptrdiff_t>(first),
                               values_.begin() + static_cast<std::ptrdiff_t>(last) + 1);
    }
    int32_t m = std::min(suffix_[first], prefix_[last]);
    if (fb + 1 < lb) {
      const size_t a = fb + 1, count = lb - a;
      size_t w = 0;
      while ((size_t{2} << w) <= count) ++w;
      m = std::min({m, table_[w][a], table_[w][lb - (size_t{1} << w)]});
    }
    return m;
  }

 private:
  std::vector<int32_t> values_;
  std::vector<int32_t> prefix_;              // minimum from the block's start to i
  std::vector<int32_t> suffix_;              // minimum from i to the block's end
  std::vector<std::vector<int32_t>> table_;  // table_[w][b]: minimum of blocks b..b + 2^w - 1
};

}  // namespace devplan
