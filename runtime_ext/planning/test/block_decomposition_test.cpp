#include <runtime_ext/planning/block_decomposition.h>

#include <gtest/gtest.h>

#include <runtime_ext/planning/exact_planner.h>
#include <runtime_ext/planning/tight_instances.h>

namespace devplan {
namespace {

// Whether the tree's nodes `list` fit within `height` and every block's members within its own
// height, each decided apart (as the exact search packs a plan from the blocks).
bool blocks_pack(const BlockTree& tree, const std::vector<int32_t>& list, uint64_t height) {
  std::vector<ExactItem> items;
  for (int32_t id : list) {
    const BlockNode& n = tree.nodes[id];
    items.push_back(ExactItem{n.size, n.lower, n.upper, n.alignment});
  }
  if (decide_exact(items, height, 100000).outcome != ExactOutcome::Fits) return false;
  for (int32_t id : list) {
    const BlockNode& n = tree.nodes[id];
    if (n.item < 0 && !blocks_pack(tree, n.members, n.size)) return false;
  }
  return true;
}

// No two time-overlapping items share a byte, and all lie below `capacity`.
bool valid(const std::vector<ExactItem>& items, const std::vector<uint64_t>& offsets,
           uint64_t capacity) {
  for (size_t i = 0; i < items.size(); ++i) {
    if (offsets[i] % items[i].alignment != 0 || offsets[i] + items[i].size > capacity) {
      return false;
    }
    for (size_t j = 0; j < i; ++j) {
      if (items[i].lower < items[j].upper && items[j].lower < items[i].upper &&
          offsets[i] < offsets[j] + items[j].size && offsets[j] < offsets[i] + items[i].size) {
        return false;
      }
    }
  }
  return true;
}

// A buffer of 6 bytes over [0, 4) and, beside it, one of 4 cut in two at step 2: at 2 both
// sections are full (10 bytes), what ends there (4) is what starts there (4).
const std::vector<ExactItem> kTwins = {{6, 0, 4, 1}, {4, 0, 2, 1}, {4, 2, 4, 1}};

TEST(BlockDecompositionTest, BuffersCutInTimeFormOneBlockBesideAFullWidthBuffer) {
  const BlockTree tree = find_blocks(kTwins, 10);
  EXPECT_EQ(tree.blocks, 1u);
  ASSERT_EQ(tree.nodes.size(), 4u);
  for (int32_t i = 0; i < 3; ++i) EXPECT_EQ(tree.nodes[i].item, i);
  const BlockNode& block = tree.nodes[3];
  EXPECT_EQ(block.item, -1);
  EXPECT_EQ(block.size, 4u);
  EXPECT_EQ(block.lower, 0);
  EXPECT_EQ(block.upper, 4);
  EXPECT_EQ(block.alignment, 1u);
  EXPECT_EQ(block.members, (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(tree.top, (std::vector<int32_t>{0, 3}));
}

TEST(BlockDecompositionTest, NoBlockFormsWhereTheSectionsBesideAPointAreNotFull) {
  const BlockTree tree = find_blocks(kTwins, 11);
  EXPECT_EQ(tree.blocks, 0u);
  EXPECT_EQ(tree.top, (std::vector<int32_t>{0, 1, 2}));
}

TEST(BlockDecompositionTest, APointsBuffersSplitIntoBalancedGroupsOfTheFewestBuffers) {
  // At step 2 the 3- and 5-byte buffers that end meet the 5- and 3-byte ones that start:
  // two groups of two (5 with 5, then 3 with 3), so two blocks, not one of four.
  const std::vector<ExactItem> items = {{3, 0, 2, 1}, {5, 0, 2, 1}, {5, 2, 4, 1}, {3, 2, 4, 1}};
  const BlockTree tree = find_blocks(items, 8);
  EXPECT_EQ(tree.blocks, 2u);
  ASSERT_EQ(tree.nodes.size(), 6u);
  EXPECT_EQ(tree.nodes[4].members, (std::vector<int32_t>{0, 3}));
  EXPECT_EQ(tree.nodes[4].size, 3u);
  EXPECT_EQ(tree.nodes[5].members, (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(tree.nodes[5].size, 5u);
  EXPECT_EQ(tree.top, (std::vector<int32_t>{4, 5}));
  const ExactDecision d = decide_exact(items, 8, 1000);
  ASSERT_EQ(d.outcome, ExactOutcome::Fits);
  EXPECT_TRUE(valid(items, d.offsets, 8));
}

// A pinwheel: five buffers around a centre, no straight cut across them (heights 0-3-6-10,
// steps 0-1-2-3).
const std::vector<ExactItem> kPinwheel = {
    {3, 0, 2, 1},  // bottom left
    {6, 2, 3, 1},  // bottom right
    {4, 1, 3, 1},  // top right
    {7, 0, 1, 1},  // top left
    {3, 1, 2, 1},  // centre
};

TEST(BlockDecompositionTest, APinwheelBesideAnotherBufferIsABlockButNotOfItselfAlone) {
  std::vector<ExactItem> items = {{10, 0, 3, 1}};
  items.insert(items.end(), kPinwheel.begin(), kPinwheel.end());
  const BlockTree tree = find_blocks(items, 20);
  EXPECT_EQ(tree.blocks, 1u);
  ASSERT_EQ(tree.nodes.size(), 7u);
  EXPECT_EQ(tree.nodes[6].members, (std::vector<int32_t>{1, 2, 3, 4, 5}));
  EXPECT_EQ(tree.nodes[6].size, 10u);
  EXPECT_EQ(tree.top, (std::vector<int32_t>{0, 6}));
  const ExactDecision d = decide_exact(items, 20, 1000);
  ASSERT_EQ(d.outcome, ExactOutcome::Fits);
  EXPECT_TRUE(valid(items, d.offsets, 20));
  // The pinwheel alone: the only block would be the whole instance.
  EXPECT_EQ(find_blocks(kPinwheel, 10).blocks, 0u);
}

TEST(BlockDecompositionTest, ABlockTakesItsMembersLargestAlignmentWhenAllArePowersOfTwo) {
  std::vector<ExactItem> items = kTwins;
  items[1].alignment = 8;
  BlockTree tree = find_blocks(items, 10);
  ASSERT_EQ(tree.blocks, 1u);
  EXPECT_EQ(tree.nodes[3].alignment, 8u);
  const ExactDecision d = decide_exact(items, 10, 1000);
  ASSERT_EQ(d.outcome, ExactOutcome::Fits);
  EXPECT_EQ(d.offsets, (std::vector<uint64_t>{4, 0, 0}));
  // An alignment of 3 has no largest that keeps both aligned wherever the block goes.
  items[1].alignment = 3;
  EXPECT_EQ(find_blocks(items, 10).blocks, 0u);
}

TEST(BlockDecompositionTest, SizeZeroBuffersAreLeftOut) {
  std::vector<ExactItem> items = kTwins;
  items.push_back(ExactItem{0, 1, 3, 1});
  const BlockTree tree = find_blocks(items, 10);
  EXPECT_EQ(tree.blocks, 1u);
  EXPECT_EQ(tree.nodes.size(), 4u);
  EXPECT_EQ(tree.top, (std::vector<int32_t>{0, 3}));
  const ExactDecision d = decide_exact(items, 10, 1000);
  ASSERT_EQ(d.outcome, ExactOutcome::Fits);
  EXPECT_EQ(d.offsets[3], 0u);
}

TEST(BlockDecompositionTest, TightInstancesComeApartIntoBlocksOfAFewNodes) {
  // 500 buffers cut from a rectangle: every block holds a few nodes, and the top level too.
  TightInstanceOptions o;
  o.buffers = 500;
  o.seed = 1;
  const std::vector<ExactItem> items = generate_tight_instance(o);
  const BlockTree tree = find_blocks(items, o.capacity);
  EXPECT_EQ(tree.blocks, 211u);
  EXPECT_EQ(tree.top.size(), 7u);
  size_t largest = 0;
  for (const BlockNode& n : tree.nodes) largest = std::max(largest, n.members.size());
  EXPECT_EQ(largest, 12u);
  EXPECT_TRUE(blocks_pack(tree, tree.top, o.capacity));
}

// A tiling of 19 buffers (capacity 9) whose blocks, formed from sizes that balance by chance,
// do not pack: the search falls back to the buffers themselves and finds the tiling.
TEST(BlockDecompositionTest, AnInstanceWhoseBlocksDoNotPackIsStillSolved) {
  const std::vector<ExactItem> items = {{2, 6, 7, 1},  {3, 4, 6, 1},  {2, 2, 7, 1},  {2, 9, 10, 1},
                                        {2, 9, 10, 1}, {1, 6, 8, 1},  {7, 0, 2, 1},  {5, 2, 4, 1},
                                        {2, 8, 9, 1},  {2, 2, 10, 1}, {2, 7, 10, 1}, {2, 0, 2, 1},
                                        {1, 5, 10, 1}, {1, 5, 6, 1},  {1, 8, 9, 1},  {2, 4, 5, 1},
                                        {1, 7, 8, 1},  {1, 7, 8, 1},  {1, 6, 9, 1}};
  EXPECT_EQ(exact_live_bytes(items), 9u);
  const BlockTree tree = find_blocks(items, 9);
  EXPECT_EQ(tree.blocks, 5u);
  EXPECT_FALSE(blocks_pack(tree, tree.top, 9));
  const ExactDecision d = decide_exact(items, 9, 100000);
  ASSERT_EQ(d.outcome, ExactOutcome::Fits);
  EXPECT_TRUE(valid(items, d.offsets, 9));
}

}  // namespace
}  // namespace devplan
