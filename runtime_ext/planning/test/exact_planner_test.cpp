#include <runtime_ext/planning/exact_planner.h>

#include <gtest/gtest.h>

#include <runtime_ext/planning/segment_trees.h>
#include <runtime_ext/planning/tight_instances.h>

namespace devplan {
namespace {

// Seven buffers whose optimum (14) is one above their live bytes (13).
const std::vector<ExactItem> kGap = {{6, 5, 8, 1}, {5, 3, 6, 1}, {6, 0, 2, 1}, {2, 1, 3, 1},
                                     {6, 0, 1, 1}, {4, 2, 4, 1}, {4, 1, 4, 1}};

TEST(ExactPlannerTest, DecidesBothWaysAroundTheOptimum) {
  EXPECT_EQ(exact_live_bytes(kGap), 13u);
  const ExactDecision below = decide_exact(kGap, 13, 1000000);
  EXPECT_EQ(below.outcome, ExactOutcome::DoesNotFit);
  const ExactDecision at = decide_exact(kGap, 14, 1000000);
  ASSERT_EQ(at.outcome, ExactOutcome::Fits);
  EXPECT_EQ(exact_height(kGap, at.offsets), 14u);
  // A budget of one node settles neither.
  EXPECT_EQ(decide_exact(kGap, 13, 1).outcome, ExactOutcome::BudgetExhausted);
  EXPECT_EQ(decide_exact(kGap, 13, 1).steps, 1);
}

TEST(ExactPlannerTest, MinimizeProvesTheOptimumAndKeepsTheIncumbentWithoutBudget) {
  const ExactPlan plan = minimize_exact(kGap, {}, 1000000);
  EXPECT_EQ(plan.height, 14u);
  EXPECT_EQ(plan.lower_bound, 14u);
  EXPECT_TRUE(plan.optimal());
  EXPECT_EQ(plan.steps, 45);  // deterministic: the same count on every run
  // No budget: the stacked incumbent (sum of sizes) and the live-bytes bound.
  const ExactPlan none = minimize_exact(kGap, {}, 0);
  EXPECT_EQ(none.height, 33u);
  EXPECT_EQ(none.lower_bound, 13u);
  EXPECT_EQ(none.steps, 0);
  EXPECT_FALSE(none.optimal());
  // stop_at: a plan at or below it ends the search.
  const ExactPlan enough = minimize_exact(kGap, {}, 1000000, 20, 20);
  EXPECT_LE(enough.height, 20u);
  EXPECT_GE(enough.height, 14u);
}

TEST(ExactPlannerTest, SizeZeroItemsTakeNoRoomAndEmptyInputIsOptimal) {
  const std::vector<ExactItem> items = {{0, 0, 5, 1}, {8, 0, 5, 4}, {0, 2, 3, 1}};
  const ExactPlan plan = minimize_exact(items, {}, 1000);
  EXPECT_EQ(plan.offsets, (std::vector<uint64_t>{0, 0, 0}));
  EXPECT_EQ(plan.height, 8u);
  EXPECT_TRUE(plan.optimal());
  const ExactPlan empty = minimize_exact({}, {}, 1000);
  EXPECT_EQ(empty.height, 0u);
  EXPECT_TRUE(empty.optimal());
  EXPECT_EQ(decide_exact({}, 0, 0).outcome, ExactOutcome::Fits);
}

TEST(ExactPlannerTest, AlignmentPaddingCountsAgainstTheCapacity) {
  // Both live at once and 8-aligned: the 5-byte one at 0 and the 3-byte one at 8 (11 bytes),
  // although only 8 bytes are live.
  const std::vector<ExactItem> items = {{3, 0, 2, 8}, {5, 0, 2, 8}};
  EXPECT_EQ(exact_live_bytes(items), 8u);
  EXPECT_EQ(decide_exact(items, 10, 100000).outcome, ExactOutcome::DoesNotFit);
  const ExactDecision d = decide_exact(items, 11, 100000);
  ASSERT_EQ(d.outcome, ExactOutcome::Fits);
  EXPECT_EQ(d.offsets, (std::vector<uint64_t>{8, 0}));
}

TEST(ExactPlannerTest, InterchangeableItemsAreTriedOnce) {
  // The gap instance plus six identical 1-byte buffers live throughout: optimum 20, live 19.
  // Proving 19 too small takes 85 nodes with twins tried once (898 when each twin is tried).
  std::vector<ExactItem> items = kGap;
  for (int k = 0; k < 6; ++k) items.push_back(ExactItem{1, 0, 8, 1});
  EXPECT_EQ(exact_live_bytes(items), 19u);
  const ExactDecision d = decide_exact(items, 19, 1000000);
  EXPECT_EQ(d.outcome, ExactOutcome::DoesNotFit);
  EXPECT_EQ(d.steps, 85);
  EXPECT_EQ(decide_exact(items, 20, 1000000).outcome, ExactOutcome::Fits);
}

// Two items of one size and end that start apart are not twins: at a full point both cover,
// each must be tried. Both sections are full at 12; every plan puts c (which starts earlier)
// on top, a under it, and b (aligned to 4) and d side by side under c.
TEST(ExactPlannerTest, ItemsThatStartApartAreNotTwinsWhereverTheSearchBranches) {
  const std::vector<ExactItem> items = {{6, 2, 3, 1}, {2, 1, 2, 4}, {6, 1, 3, 1}, {4, 1, 2, 1}};
  for (ExactBranching way :
       {ExactBranching::Restarts, ExactBranching::RunStarts, ExactBranching::AnyFullPoint}) {
    const ExactDecision at = decide_exact(items, 12, 1000000, way);
    ASSERT_EQ(at.outcome, ExactOutcome::Fits) << static_cast<int>(way);
    EXPECT_EQ(at.offsets, (std::vector<uint64_t>{0, 4, 6, 0})) << static_cast<int>(way);
  }
}

TEST(ExactPlannerTest, IndependentTimeRangesAreSolvedApart) {
  // Two copies of the gap instance, one after the other in time: each half fails at 13 on its
  // own; the search proves it without multiplying the halves' work.
  std::vector<ExactItem> items = kGap;
  for (ExactItem it : kGap) {
    it.lower += 100;
    it.upper += 100;
    items.push_back(it);
  }
  const ExactDecision d = decide_exact(items, 13, 1000000);
  EXPECT_EQ(d.outcome, ExactOutcome::DoesNotFit);
  EXPECT_LE(d.steps, 2 * decide_exact(kGap, 13, 1000000).steps + 4);
}

TEST(ExactPlannerTest, TightInstancesSolveAtTheirCapacity) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    TightInstanceOptions o;
    o.buffers = 100;
    o.seed = seed;
    const std::vector<ExactItem> items = generate_tight_instance(o);
    ASSERT_EQ(items.size(), 100u);
    EXPECT_EQ(exact_live_bytes(items), o.capacity);
    const ExactDecision d = decide_exact(items, o.capacity, 1000000);
    ASSERT_EQ(d.outcome, ExactOutcome::Fits) << "seed " << seed;
    EXPECT_EQ(exact_height(items, d.offsets), o.capacity);
  }
}

TEST(SegmentTreesTest, MinAndCountTreesAnswerRangeQueries) {
  MinTree m(5, 100);
  m.set(3, 4);
  m.set(1, 7);
  EXPECT_EQ(m.min(0, 2, 100), 7u);
  EXPECT_EQ(m.min(2, 4, 100), 4u);
  EXPECT_EQ(m.min(3, 2, 55), 55u);
  CountTree c(6);
  c.add(2, 3);
  c.add(5, 1);
  EXPECT_EQ(c.sum(0, 5), 4);
  EXPECT_EQ(c.sum(3, 4), 0);
  c.add(2, -3);
  EXPECT_EQ(c.sum(0, 2), 0);
}

TEST(ExactPlannerTest, TightInstancesOfFiveHundredBuffersPackFromTheirBlocks) {
  // Seeds 68 and 165 form a block from sizes that balance by chance: a block that holds it packs
  // once that one is taken apart into its buffers.
  for (uint64_t seed : {1, 2, 3, 4, 5, 6, 7, 8, 68, 165}) {
    TightInstanceOptions o;
    o.buffers = 500;
    o.seed = seed;
    const std::vector<ExactItem> items = generate_tight_instance(o);
    const ExactDecision d = decide_exact(items, o.capacity, 1000000);
    ASSERT_EQ(d.outcome, ExactOutcome::Fits) << "seed " << seed;
    EXPECT_EQ(exact_height(items, d.offsets), o.capacity) << "seed " << seed;
    EXPECT_LE(d.steps, 250000) << "seed " << seed;  // within the blocks' quarter of the budget
  }
  TightInstanceOptions o;
  o.buffers = 500;
  EXPECT_EQ(decide_exact(generate_tight_instance(o), o.capacity, 1000000).steps, 713);
}

}  // namespace
}  // namespace devplan
