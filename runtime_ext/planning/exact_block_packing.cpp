// decide_by_blocks (exact_search.h): a plan of the items from their blocks
// (block_decomposition.h), each block's members packed by ExactSearch within its height.
#include <runtime_ext/planning/exact_search.h>

#include <algorithm>
#include <utility>

#include <runtime_ext/planning/block_decomposition.h>

namespace devplan::internal {
namespace {

// Decides the nodes `list` of `tree` within `height` with at most `budget` nodes (added to
// out->steps) before `deadline` (out->timed_out when it passed), searching as `branching`
// says; their offsets go to within[node].
ExactOutcome pack_level(const BlockTree& tree, const std::vector<int32_t>& list, uint64_t height,
                        int64_t budget, ExactBranching branching, const ExactDeadline& deadline,
                        std::vector<uint64_t>* within, ExactDecision* out) {
  std::vector<ExactItem> level;
  level.reserve(list.size());
  for (int32_t id : list) {
    const BlockNode& n = tree.nodes[id];
    level.push_back(ExactItem{n.size, n.lower, n.upper, n.alignment});
  }
  const ExactDecision d = ExactSearch(level, false).decide(height, budget, branching, deadline);
  out->steps += d.steps;
  out->timed_out = out->timed_out || d.timed_out;
  if (d.outcome != ExactOutcome::Fits) return d.outcome;
  for (size_t k = 0; k < list.size(); ++k) (*within)[list[k]] = d.offsets[k];
  return ExactOutcome::Fits;
}

// The buffers (leaves) a node of `tree` holds, appended to *out.
void leaves_of(const BlockTree& tree, int32_t node, std::vector<int32_t>* out) {
  if (tree.nodes[node].item >= 0) {
    out->push_back(node);
    return;
  }
  for (int32_t m : tree.nodes[node].members) leaves_of(tree, m, out);
}

}  // namespace

// A plan of `items` within `capacity` from their blocks (block_decomposition.h), searching at
// most `budget` nodes: each block's members packed within its height (the smallest blocks
// first), then the top level. Where a block's members do not pack (or not within a sixteenth
// of what is left: a true block's pack at once), a smaller block inside it may be the wrong
// one, so it is packed with each smaller block in turn taken apart into its buffers, then with
// all of its buffers; where that fails too, the block is refused and the blocks are formed
// again without it, up to kMaxRefusals times. The outcome is Fits or BudgetExhausted: finding
// no plan from the blocks proves nothing about the buffers themselves.
constexpr int kMaxRefusals = 16;

ExactDecision decide_by_blocks(const std::vector<ExactItem>& items, uint64_t capacity,
                               int64_t budget, ExactBranching branching,
                               const ExactDeadline& deadline) {
  ExactDecision out;
  std::vector<uint64_t> refused;
  for (int round = 0; round <= kMaxRefusals; ++round) {
    BlockTree tree = find_blocks(items, capacity, refused);
    if (tree.blocks == 0) return out;
    std::vector<uint64_t> within(tree.nodes.size(), 0);  // offset in its block or at the top
    int32_t refuse = -1;
    for (size_t b = 0; b < tree.nodes.size() && refuse < 0; ++b) {
      BlockNode& block = tree.nodes[b];
      if (block.item >= 0) continue;
      // The members as formed; then with one smaller block inside taken apart into its
      // buffers, each in turn; then all of its buffers.
      std::vector<std::vector<int32_t>> tries = {block.members};
      for (int32_t m : block.members) {
        if (tree.nodes[m].item >= 0) continue;
        std::vector<int32_t> apart;
        for (int32_t other : block.members) {
          if (other != m) apart.push_back(other);
        }
        leaves_of(tree, m, &apart);
        tries.push_back(std::move(apart));
      }
      if (tries.size() > 2) {
        tries.emplace_back();
        leaves_of(tree, static_cast<int32_t>(b), &tries.back());
      }
      bool packed = false;
      for (std::vector<int32_t>& members : tries) {
        const int64_t left = budget - out.steps;
        if (left <= 0 || out.timed_out) return out;
        if (pack_level(tree, members, block.size, std::max<int64_t>(left / 16, 1), branching,
                       deadline, &within, &out) == ExactOutcome::Fits) {
          block.members = std::move(members);
          packed = true;
          break;
        }
      }
      if (!packed) refuse = static_cast<int32_t>(b);
    }
    if (refuse >= 0) {
      refused.push_back(tree.nodes[refuse].key);
      continue;
    }
    const int64_t left = budget - out.steps;
    if (left <= 0 || out.timed_out ||
        pack_level(tree, tree.top, capacity, left, branching, deadline, &within, &out) !=
            ExactOutcome::Fits) {
      return out;
    }
    // Offsets from the top down.
    out.offsets.assign(items.size(), 0);
    std::vector<std::pair<int32_t, uint64_t>> todo;  // (node, offset of what holds it)
    for (int32_t id : tree.top) todo.push_back({id, 0});
    while (!todo.empty()) {
      const auto [id, base] = todo.back();
      todo.pop_back();
      const BlockNode& n = tree.nodes[id];
      if (n.item >= 0) out.offsets[n.item] = base + within[id];
      for (int32_t m : n.members) todo.push_back({m, base + within[id]});
    }
    out.outcome = ExactOutcome::Fits;
    return out;
  }
  return out;
}

}  // namespace devplan::internal
