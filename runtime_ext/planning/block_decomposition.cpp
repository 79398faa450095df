#include <runtime_ext/planning/block_decomposition.h>

#include <algorithm>
#include <unordered_map>
#include <utility>

#include <runtime_ext/planning/split_mix64.h>

namespace devplan {

namespace {

// A point's groups are split over at most this many buffers per side (bits of a mask); beyond,
// the ends and starts there form one group.
constexpr size_t kMaxSide = 64;
// Subsets of one size of one side are tried when there are at most this many of them.
constexpr uint64_t kMaxSubsets = 5000;
// A block holds at most this many nodes (blocks form from the bottom up, a few at a time).
constexpr size_t kMaxMembers = 64;

bool power_of_two(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

// Calls visit(mask, total) for every subset of `count` of `sizes`, in lexicographic order of
// positions, until it returns true; true when one did.
template <typename Visit>
bool each_subset(const std::vector<uint64_t>& sizes, size_t count, Visit visit) {
  std::vector<size_t> at(count);
  for (size_t k = 0; k < count; ++k) at[k] = k;
  for (;;) {
    uint64_t mask = 0, total = 0;
    for (size_t k : at) mask |= uint64_t{1} << k, total += sizes[k];
    if (visit(mask, total)) return true;
    size_t k = count;
    while (k > 0 && at[k - 1] == sizes.size() - count + k - 1) --k;
    if (k == 0) return false;
    ++at[k - 1];
    for (size_t j = k; j < count; ++j) at[j] = at[j - 1] + 1;
  }
}

// C(n, k), saturated past kMaxSubsets.
uint64_t subsets(size_t n, size_t k) {
  uint64_t c = 1;
  for (size_t j = 1; j <= k; ++j) {
    c = c * (n - k + j) / j;
    if (c > kMaxSubsets) return kMaxSubsets + 1;
  }
  return c;
}

// The balanced split of the fewest nodes (some of `ends` and some of `starts` of equal totals,
// not all of both): *end_mask and *start_mask; false when there is none among the subsets tried.
bool fewest_balanced(const std::vector<uint64_t>& ends, const std::vector<uint64_t>& starts,
                     uint64_t* end_mask, uint64_t* start_mask) {
  std::vector<std::unordered_map<uint64_t, uint64_t>> by_total(ends.size() + 1);
  std::vector<uint8_t> listed(ends.size() + 1, 0);
  for (size_t count = 2; count <= ends.size() + starts.size(); ++count) {
    for (size_t a = 1; a < count; ++a) {
      const size_t b = count - a;
      if (a > ends.size() || b > starts.size() || (a == ends.size() && b == starts.size())) {
        continue;
      }
      if (subsets(ends.size(), a) > kMaxSubsets || subsets(starts.size(), b) > kMaxSubsets) {
        continue;
      }
      if (!listed[a]) {
        listed[a] = 1;
        each_subset(ends, a, [&](uint64_t mask, uint64_t total) {
          by_total[a].emplace(total, mask);  // the first of each total
          return false;
        });
      }
      const bool found = each_subset(starts, b, [&](uint64_t mask, uint64_t total) {
        const auto it = by_total[a].find(total);
        if (it == by_total[a].end()) return false;
        *end_mask = it->second;
        *start_mask = mask;
        return true;
      });
      if (found) return true;
    }
  }
  return false;
}

// Splits what ends and what starts at a full point (positions into `list`; equal totals) into
// balanced groups, taking each time the one of the fewest nodes; what no split separates is one
// group.
std::vector<std::vector<int32_t>> balanced_groups(const std::vector<BlockNode>& nodes,
                                                  const std::vector<int32_t>& list,
                                                  std::vector<int32_t> ends,
                                                  std::vector<int32_t> starts) {
  std::vector<std::vector<int32_t>> groups;
  const auto sizes = [&](const std::vector<int32_t>& side) {
    std::vector<uint64_t> out;
    for (int32_t k : side) out.push_back(nodes[list[k]].size);
    return out;
  };
  uint64_t end_mask = 0, start_mask = 0;
  while (ends.size() > 1 && starts.size() > 1 && ends.size() <= kMaxSide &&
         starts.size() <= kMaxSide &&
         fewest_balanced(sizes(ends), sizes(starts), &end_mask, &start_mask)) {
    std::vector<int32_t> group, ends_left, starts_left;
    for (size_t k = 0; k < ends.size(); ++k) {
      ((end_mask >> k) & 1 ? group : ends_left).push_back(ends[k]);
    }
    for (size_t k = 0; k < starts.size(); ++k) {
      ((start_mask >> k) & 1 ? group : starts_left).push_back(starts[k]);
    }
    groups.push_back(std::move(group));
    ends = std::move(ends_left);
    starts = std::move(starts_left);
  }
  std::vector<int32_t> rest = std::move(ends);
  rest.insert(rest.end(), starts.begin(), starts.end());
  groups.push_back(std::move(rest));
  return groups;
}

// One pass over the top level: the blocks it can form now.
class BlockPass {
 public:
  BlockPass(const std::vector<BlockNode>& nodes, const std::vector<int32_t>& list,
            uint64_t capacity)
      : nodes_(nodes), list_(list) {
    std::vector<int64_t> points;
    for (int32_t id : list) {
      points.push_back(nodes[id].lower);
      points.push_back(nodes[id].upper);
    }
    std::sort(points.begin(), points.end());
    points.erase(std::unique(points.begin(), points.end()), points.end());
    const auto index = [&](int64_t p) {
      return static_cast<size_t>(std::lower_bound(points.begin(), points.end(), p) -
                                 points.begin());
    };
    std::vector<std::vector<int32_t>> ends(points.size()), starts(points.size());
    std::vector<uint64_t> live(points.size(), 0);  // per section [points[k], points[k + 1])
    for (size_t k = 0; k < list.size(); ++k) {
      const BlockNode& n = nodes[list[k]];
      const size_t a = index(n.lower), b = index(n.upper);
      starts[a].push_back(static_cast<int32_t>(k));
      ends[b].push_back(static_cast<int32_t>(k));
      live[a] += n.size;
      live[b] -= n.size;
    }
    for (size_t k = 1; k < points.size(); ++k) live[k] += live[k - 1];
    group_at_lower_.assign(list.size(), -1);
    group_at_upper_.assign(list.size(), -1);
    for (size_t p = 1; p + 1 < points.size(); ++p) {
      if (live[p - 1] != capacity || live[p] != capacity) continue;  // not full on both sides
      for (std::vector<int32_t>& group : balanced_groups(nodes, list, ends[p], starts[p])) {
        for (int32_t k : group) {
          (nodes[list[k]].upper == points[p] ? group_at_upper_ : group_at_lower_)[k] =
              static_cast<int32_t>(groups_.size());
        }
        groups_.push_back(std::move(group));
      }
    }
  }

  // The blocks this pass forms (positions into the list, each sorted): for every group, the
  // smallest set closed under the groups inside its time range (not refused, aligned); the
  // smallest first, none sharing a node.
  std::vector<std::vector<int32_t>> blocks(const std::vector<uint64_t>& refused) {
    std::vector<std::vector<int32_t>> found;
    member_stamp_.assign(list_.size(), -1);
    group_stamp_.assign(groups_.size(), -1);
    for (size_t g = 0; g < groups_.size(); ++g) {
      std::vector<int32_t> block;
      if (!close(static_cast<int32_t>(g), &block) || !aligned(block)) continue;
      uint64_t key = 0;
      for (int32_t k : block) key += nodes_[list_[k]].key;
      if (std::find(refused.begin(), refused.end(), key) == refused.end()) found.push_back(block);
    }
    std::sort(found.begin(), found.end(), [](const auto& x, const auto& y) {
      return x.size() != y.size() ? x.size() < y.size() : x < y;
    });
    std::vector<std::vector<int32_t>> out;
    std::vector<uint8_t> taken(list_.size(), 0);
    for (std::vector<int32_t>& block : found) {
      if (std::any_of(block.begin(), block.end(), [&](int32_t k) { return taken[k] != 0; })) {
        continue;
      }
      for (int32_t k : block) taken[k] = 1;
      out.push_back(std::move(block));
    }
    return out;
  }

 private:
  // Grows group g into the smallest set closed under the groups at the points strictly inside
  // its time range; false when a point inside has no groups (a section beside it is not full)
  // or the set grows too large to be a block.
  bool close(int32_t g, std::vector<int32_t>* block) {
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    const auto add_group = [&](int32_t x) {
      group_stamp_[x] = g;
      for (int32_t k : groups_[x]) {
        if (member_stamp_[k] == g) continue;
        member_stamp_[k] = g;
        block->push_back(k);
        lo = std::min(lo, nodes_[list_[k]].lower);
        hi = std::max(hi, nodes_[list_[k]].upper);
      }
    };
    add_group(g);
    for (bool grew = true; grew;) {
      grew = false;
      if (block->size() > kMaxMembers || block->size() >= list_.size()) return false;
      for (size_t m = 0; m < block->size(); ++m) {
        const int32_t k = (*block)[m];
        const BlockNode& n = nodes_[list_[k]];
        for (const auto& [inside, group] : {std::pair{n.lower > lo, group_at_lower_[k]},
                                            std::pair{n.upper < hi, group_at_upper_[k]}}) {
          if (!inside) continue;
          if (group < 0) return false;
          if (group_stamp_[group] == g) continue;
          add_group(group);
          grew = true;
        }
      }
    }
    std::sort(block->begin(), block->end());
    return block->size() >= 2;
  }

  // Whether the block's alignments are all powers of two (so that its members stay aligned
  // wherever it goes, aligned to the largest). Its live bytes need no check: at every point
  // inside its time range it holds whole groups, and a group's ends and starts are of equal
  // bytes, so what it holds is the same from one end of the range to the other.
  bool aligned(const std::vector<int32_t>& block) const {
    return std::all_of(block.begin(), block.end(),
                       [&](int32_t k) { return power_of_two(nodes_[list_[k]].alignment); });
  }

  const std::vector<BlockNode>& nodes_;
  const std::vector<int32_t>& list_;
  std::vector<std::vector<int32_t>> groups_;              // positions into the list
  std::vector<int32_t> group_at_lower_, group_at_upper_;  // per position: its group there; -1
  std::vector<int32_t> member_stamp_, group_stamp_;       // the closure that last took each
};

}  // namespace

BlockTree find_blocks(const std::vector<ExactItem>& items, uint64_t capacity,
                      const std::vector<uint64_t>& refused) {
  BlockTree tree;
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].size == 0) continue;
    tree.top.push_back(static_cast<int32_t>(tree.nodes.size()));
    tree.nodes.push_back(BlockNode{items[i].size,
                                   items[i].lower,
                                   items[i].upper,
                                   items[i].alignment,
                                   static_cast<int32_t>(i),
                                   {},
                                   SplitMix64(i).next()});
  }
  for (;;) {
    BlockPass pass(tree.nodes, tree.top, capacity);
    const std::vector<std::vector<int32_t>> blocks = pass.blocks(refused);
    if (blocks.empty()) return tree;
    std::vector<uint8_t> taken(tree.top.size(), 0);
    std::vector<int32_t> next;
    for (const std::vector<int32_t>& block : blocks) {
      BlockNode b;
      b.lower = INT64_MAX, b.upper = INT64_MIN;
      for (int32_t k : block) {
        const BlockNode& n = tree.nodes[tree.top[k]];
        taken[k] = 1;
        b.members.push_back(tree.top[k]);
        b.key += n.key;
        b.lower = std::min(b.lower, n.lower);
        b.upper = std::max(b.upper, n.upper);
        b.alignment = std::max(b.alignment, n.alignment);
      }
      for (int32_t m : b.members) {
        if (tree.nodes[m].lower == b.lower) b.size += tree.nodes[m].size;
      }
      next.push_back(static_cast<int32_t>(tree.nodes.size()));
      tree.nodes.push_back(std::move(b));
      ++tree.blocks;
    }
    for (size_t k = 0; k < tree.top.size(); ++k) {
      if (!taken[k]) next.push_back(tree.top[k]);
    }
    std::sort(next.begin(), next.end());
    tree.top = std::move(next);
  }
}

}  // namespace devplan
