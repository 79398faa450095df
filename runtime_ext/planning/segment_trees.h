// Three trees the exact planner keeps over its time sections:
//   MinTree     values with point updates and range minimum. O(log n) each.
//   MaxTree     values with point updates and range maximum. O(log n) each.
//   CountTree   counts with point additions and range sums (a Fenwick tree). O(log n) each.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace devplan {

class MinTree {
 public:
  MinTree(size_t n, uint64_t initial) : leaves_(1) {
    while (leaves_ < n) leaves_ *= 2;
    tree_.assign(2 * leaves_, initial);
  }

  void set(size_t i, uint64_t value) {
    size_t node = i + leaves_;
    tree_[node] = value;
    for (node /= 2; node >= 1; node /= 2) {
      tree_[node] = std::min(tree_[2 * node], tree_[2 * node + 1]);
    }
  }

  // min over [l, r] inclusive; `none` when l > r.
  uint64_t min(size_t l, size_t r, uint64_t none) const {
    uint64_t out = none;
    if (l > r) return out;
    for (size_t a = l + leaves_, b = r + leaves_ + 1; a < b; a /= 2, b /= 2) {
      if (a & 1) out = std::min(out, tree_[a++]);
      if (b & 1) out = std::min(out, tree_[--b]);
    }
    return out;
  }

 private:
  size_t leaves_;
  std::vector<uint64_t> tree_;
};

class MaxTree {
 public:
  explicit MaxTree(size_t n) : leaves_(1) {
    while (leaves_ < n) leaves_ *= 2;
    tree_.assign(2 * leaves_, 0);
  }

  void set(size_t i, uint64_t value) {
    size_t node = i + leaves_;
    tree_[node] = value;
    for (node /= 2; node >= 1; node /= 2) {
      tree_[node] = std::max(tree_[2 * node], tree_[2 * node + 1]);
    }
  }

  // max over [l, r] inclusive; 0 when l > r.
  uint64_t max(size_t l, size_t r) const {
    uint64_t out = 0;
    if (l > r) return out;
    for (size_t a = l + leaves_, b = r + leaves_ + 1; a < b; a /= 2, b /= 2) {
      if (a & 1) out = std::max(out, tree_[a++]);
      if (b & 1) out = std::max(out, tree_[--b]);
    }
    return out;
  }

 private:
  size_t leaves_;
  std::vector<uint64_t> tree_;
};

class CountTree {
 public:
  explicit CountTree(size_t n) : tree_(n + 1, 0) {}

  void add(size_t i, int64_t delta) {
    for (size_t k = i + 1; k < tree_.size(); k += k & (~k + 1)) tree_[k] += delta;
  }

  // Sum over [l, r] inclusive; 0 when l > r.
  int64_t sum(size_t l, size_t r) const { return l > r ? 0 : prefix(r + 1) - prefix(l); }

 private:
  int64_t prefix(size_t count) const {
    int64_t out = 0;
    for (size_t k = count; k > 0; k -= k & (~k + 1)) out += tree_[k];
    return out;
  }

  std::vector<int64_t> tree_;
};

}  // namespace devplan
