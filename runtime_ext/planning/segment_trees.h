// Two segment trees the exact planner keeps over its time sections:
//   AssignTree  values with range assignment; range maximum, the leftmost minimum in a range, and
//   the first index at or
//               after a position whose value exceeds a threshold. O(log n) each.
//   MinTree     values with point updates and range minimum. O(log n) each.
//   CountTree   counts with point additions and range sums (a Fenwick tree). O(log n) each.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace devplan {

class AssignTree {
 public:
  explicit AssignTree(const std::vector<uint64_t>& values)
      : n_(static_cast<int32_t>(values.size())),
        min_(4 * std::max<size_t>(values.size(), 1)),
        max_(min_.size()),
        lazy_(min_.size()),
        has_lazy_(min_.size(), 0) {
    if (n_ > 0) build(1, 0, n_ - 1, values);
  }

  int32_t size() const { return n_; }

  // values[l..r] = value (inclusive).
  void assign(int32_t l, int32_t r, uint64_t value) { assign(1, 0, n_ - 1, l, r, value); }

  uint64_t get(int32_t i) {
    int32_t node = 1, lo = 0, hi = n_ - 1;
    while (lo < hi) {
      push(node);
      const int32_t mid = (lo + hi) / 2;
      if (i <= mid) {
        node = 2 * node, hi = mid;
      } else {
        node = 2 * node + 1, lo = mid + 1;
      }
    }
    return min_[node];
  }

  // max of values[l..r] (inclusive).
  uint64_t max(int32_t l, int32_t r) { return max(1, 0, n_ - 1, l, r); }

  // (index, value) of the smallest value in [l, r], the leftmost on ties; l <= r.
  std::pair<int32_t, uint64_t> leftmost_min(int32_t l, int32_t r) {
    const uint64_t smallest = min(1, 0, n_ - 1, l, r);
    return {first_at_most(1, 0, n_ - 1, l, smallest), smallest};
  }

  // The first index >= from whose value is above `threshold`; size() when there is none.
  int32_t first_above(int32_t from, uint64_t threshold) {
    return first_above(1, 0, n_ - 1, from, threshold);
  }

 private:
  void build(int32_t node, int32_t lo, int32_t hi, const std::vector<uint64_t>& values) {
    if (lo == hi) {
      min_[node] = max_[node] = values[lo];
      return;
    }
    const int32_t mid = (lo + hi) / 2;
    build(2 * node, lo, mid, values);
    build(2 * node + 1, mid + 1, hi, values);
    pull(node);
  }
  void pull(int32_t node) {
    min_[node] = std::min(min_[2 * node], min_[2 * node + 1]);
    max_[node] = std::max(max_[2 * node], max_[2 * node + 1]);
  }
  void apply(int32_t node, uint64_t value) {
    min_[node] = max_[node] = lazy_[node] = value;
    has_lazy_[node] = 1;
  }
  void push(int32_t node) {
    if (!has_lazy_[node]) return;
    apply(2 * node, lazy_[node]);
    apply(2 * node + 1, lazy_[node]);
    has_lazy_[node] = 0;
  }
  void assign(int32_t node, int32_t lo, int32_t hi, int32_t l, int32_t r, uint64_t value) {
    if (r < lo || hi < l) return;
    if (l <= lo && hi <= r) {
      apply(node, value);
      return;
    }
    push(node);
    const int32_t mid = (lo + hi) / 2;
    assign(2 * node, lo, mid, l, r, value);
    assign(2 * node + 1, mid + 1, hi, l, r, value);
    pull(node);
  }
  uint64_t max(int32_t node, int32_t lo, int32_t hi, int32_t l, int32_t r) {
    if (r < lo || hi < l) return 0;
    if (l <= lo && hi <= r) return max_[node];
    push(node);
    const int32_t mid = (lo + hi) / 2;
    return std::max(max(2 * node, lo, mid, l, r), max(2 * node + 1, mid + 1, hi, l, r));
  }
  uint64_t min(int32_t node, int32_t lo, int32_t hi, int32_t l, int32_t r) {
    if (r < lo || hi < l) return UINT64_MAX;
    if (l <= lo && hi <= r) return min_[node];
    push(node);
    const int32_t mid = (lo + hi) / 2;
    return std::min(min(2 * node, lo, mid, l, r), min(2 * node + 1, mid + 1, hi, l, r));
  }
  int32_t first_at_most(int32_t node, int32_t lo, int32_t hi, int32_t from, uint64_t value) {
    if (hi < from || min_[node] > value) return n_;
    if (lo == hi) return lo;
    push(node);
    const int32_t mid = (lo + hi) / 2;
    const int32_t left = first_at_most(2 * node, lo, mid, from, value);
    return left != n_ ? left : first_at_most(2 * node + 1, mid + 1, hi, from, value);
  }
  int32_t first_above(int32_t node, int32_t lo, int32_t hi, int32_t from, uint64_t threshold) {
    if (hi < from || max_[node] <= threshold) return n_;
    if (lo == hi) return lo;
    push(node);
    const int32_t mid = (lo + hi) / 2;
    const int32_t left = first_above(2 * node, lo, mid, from, threshold);
    return left != n_ ? left : first_above(2 * node + 1, mid + 1, hi, from, threshold);
  }

  int32_t n_;
  std::vector<uint64_t> min_, max_, lazy_;
  std::vector<uint8_t> has_lazy_;
};

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
