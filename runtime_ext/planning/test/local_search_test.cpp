#include <runtime_ext/planning/local_search.h>

#include <gtest/gtest.h>

#include <runtime_ext/planning/hood_solver.h>
#include <runtime_ext/planning/offset_planner.h>
#include <runtime_ext/planning/plan_verifier.h>

namespace devplan {
namespace {

// The chain a -> b -> c -> d with sizes 160, 32, 144, 160: greedy by size gives 336, the
// optimum (= the lower bound) is 304.
PlacementEngine tricky_chain_engine() {
  return PlacementEngine({160, 32, 144, 160}, {0, 1, 2, 3}, {1, 2, 3, 4});
}

TEST(HoodSolverTest, FindsTheOptimumOfASmallNeighbourhood) {
  PlacementEngine engine = tricky_chain_engine();
  engine.clear();
  HoodSolver solver;
  solver.reset(engine, {0, 1, 2, 3});
  std::vector<uint64_t> offsets;
  ASSERT_TRUE(solver.solve(336, 1000, &offsets));
  uint64_t top = 0;
  for (int i = 0; i < 4; ++i) top = std::max(top, offsets[i] + engine.size(i));
  EXPECT_EQ(top, 304u);
  std::vector<PlanItem> items = {{160, 0, 1}, {32, 1, 2}, {144, 2, 3}, {160, 3, 4}};
  EXPECT_TRUE(verify_offsets(items, offsets, 304, 16).empty());
  // Nothing below the optimum exists.
  EXPECT_FALSE(solver.solve(304, 100000, &offsets));
}

TEST(HoodSolverTest, WorksAroundFixedItems) {
  // Item 0 fixed at [0, 64) over steps 0..3; items 1 and 2 (48 bytes, steps 0..1 and 1..2) must
  // stack above it: the best top is 160.
  PlacementEngine engine({64, 48, 48}, {0, 0, 1}, {3, 1, 2});
  engine.clear();
  engine.add(0, 0);
  HoodSolver solver;
  solver.reset(engine, {1, 2});
  std::vector<uint64_t> offsets;
  ASSERT_TRUE(solver.solve(UINT64_MAX, 100, &offsets));
  EXPECT_EQ(std::max(offsets[0], offsets[1]) + 48, 160u);
  EXPECT_GE(std::min(offsets[0], offsets[1]), 64u);
  EXPECT_FALSE(solver.solve(160, 100, &offsets));
}

TEST(LocalSearchTest, ImprovesTheGreedyPlacementToTheBound) {
  PlacementEngine engine = tricky_chain_engine();
  std::vector<uint64_t> offsets;
  const uint64_t greedy =
      engine.place({0, 3, 2, 1}, PlacementEngine::Fit::kLowest, UINT64_MAX, &offsets);
  ASSERT_EQ(greedy, 336u);
  LocalSearchResult r = improve_placement(engine, offsets, greedy, 304, 2000, 7);
  EXPECT_EQ(r.total, 304u);
  std::vector<PlanItem> items = {{160, 0, 1}, {32, 1, 2}, {144, 2, 3}, {160, 3, 4}};
  EXPECT_TRUE(verify_offsets(items, r.offsets, r.total, 16).empty());
  // Deterministic.
  LocalSearchResult again = improve_placement(engine, offsets, greedy, 304, 2000, 7);
  EXPECT_EQ(again.offsets, r.offsets);
}

TEST(LocalSearchTest, NoBudgetOrAtTheBoundChangesNothing) {
  PlacementEngine engine = tricky_chain_engine();
  std::vector<uint64_t> offsets = {0, 304, 160, 0};
  LocalSearchResult r = improve_placement(engine, offsets, 336, 304, 0, 1);
  EXPECT_EQ(r.total, 336u);
  EXPECT_EQ(r.offsets, offsets);
  r = improve_placement(engine, offsets, 336, 336, 1000, 1);
  EXPECT_EQ(r.offsets, offsets);
}

}  // namespace
}  // namespace devplan
