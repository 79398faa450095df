// Properties of the blocks the exact planner packs first (runtime_ext/planning/
// block_decomposition.h): on tilings (of small capacities too, where sizes balance by chance and
// alignments of every kind), every buffer is one leaf, every node is held once (by a block or the
// top level), and every block fills a rectangle: its members' live bytes are its height at every
// point of its lifetime.
#include <algorithm>
#include <map>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <runtime_ext/planning/block_decomposition.h>
#include <runtime_ext/planning/exact_planner.h>
#include <runtime_ext/planning/tight_instances.h>
#include "property.h"

namespace devplan {
namespace testing {
namespace {

void check_tree(const std::vector<ExactItem>& items, const BlockTree& tree) {
  size_t leaves = 0;
  std::vector<int> holders(tree.nodes.size(), 0);
  for (int32_t id : tree.top) ++holders[id];
  size_t blocks = 0;
  for (size_t b = 0; b < tree.nodes.size(); ++b) {
    const BlockNode& n = tree.nodes[b];
    if (n.item >= 0) {
      ++leaves;
      RC_ASSERT(n.members.empty());
      const ExactItem& it = items[n.item];
      RC_ASSERT(n.size == it.size);
      RC_ASSERT(n.lower == it.lower);
      RC_ASSERT(n.upper == it.upper);
      continue;
    }
    ++blocks;
    RC_ASSERT(n.members.size() >= 2u);
    std::map<int64_t, int64_t> change;  // point -> change of live bytes
    int64_t lower = INT64_MAX, upper = INT64_MIN;
    uint64_t alignment = 1;
    for (int32_t m : n.members) {
      RC_ASSERT(static_cast<size_t>(m) < b);  // members come first
      ++holders[m];
      const BlockNode& member = tree.nodes[m];
      change[member.lower] += static_cast<int64_t>(member.size);
      change[member.upper] -= static_cast<int64_t>(member.size);
      lower = std::min(lower, member.lower);
      upper = std::max(upper, member.upper);
      alignment = std::max(alignment, member.alignment);
      RC_ASSERT((member.alignment & (member.alignment - 1)) == 0u);  // a power of two
    }
    RC_ASSERT(n.lower == lower);
    RC_ASSERT(n.upper == upper);
    RC_ASSERT(n.alignment == alignment);
    int64_t live = 0;
    for (const auto& [point, delta] : change) {
      live += delta;
      if (point < upper) RC_ASSERT(live == static_cast<int64_t>(n.size));
    }
  }
  RC_ASSERT(blocks == tree.blocks);
  size_t sized = 0;
  for (const ExactItem& it : items) sized += it.size > 0 ? 1 : 0;
  RC_ASSERT(leaves == sized);
  for (int count : holders) RC_ASSERT(count == 1);
}

DEVPLAN_PROP(BlockDecomposition, EveryBlockOfATilingFillsARectangle, ()) {
  TightInstanceOptions o;
  o.buffers = *rc::gen::inRange<size_t>(1, 400);
  // Small capacities make sizes balance by chance (blocks that are no rectangle of the tiling).
  o.capacity =
      *rc::gen::oneOf(rc::gen::inRange<uint64_t>(1, 17), rc::gen::inRange<uint64_t>(1, 1 << 20));
  o.duration = *rc::gen::inRange<int64_t>(1, 1000);
  o.pinwheel_chance = *rc::gen::element(0.0, 0.1, 0.5);
  o.seed = *rc::gen::arbitrary<uint64_t>();
  const std::vector<ExactItem> items = generate_tight_instance(o);
  check_tree(items, find_blocks(items, o.capacity));
}

DEVPLAN_PROP(BlockDecomposition, BlocksHoldOnlyAlignmentsThatArePowersOfTwo, ()) {
  TightInstanceOptions o;
  o.buffers = *rc::gen::inRange<size_t>(1, 100);
  o.capacity = *rc::gen::inRange<uint64_t>(1, 65);
  o.duration = *rc::gen::inRange<int64_t>(1, 50);
  o.seed = *rc::gen::arbitrary<uint64_t>();
  std::vector<ExactItem> items = generate_tight_instance(o);
  for (ExactItem& it : items) it.alignment = *rc::gen::element<uint64_t>(1, 2, 3, 4);
  check_tree(items, find_blocks(items, o.capacity));
}

}  // namespace
}  // namespace testing
}  // namespace devplan
