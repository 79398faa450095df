#include <runtime_ext/planning/local_search.h>

#include <gtest/gtest.h>

#include <algorithm>

#include <runtime_ext/planning/hood_solver.h>
#include <runtime_ext/planning/offset_planner.h>
#include <runtime_ext/planning/plan_verifier.h>

namespace devplan {
namespace {

// A random instance from a fixed LCG `seed`: `count` items of 16 * [1, max_units] bytes, first
// steps in [0, first_steps), lengths from `length(next)`; the greedy lowest-fit placement in
// item order and the live-bytes lower bound.
struct RandomInstance {
  std::vector<uint64_t> sizes;
  std::vector<int32_t> firsts, lasts;
  std::vector<PlanItem> items;
  std::vector<uint64_t> greedy_offsets;
  uint64_t greedy = 0;
  uint64_t bound = 0;
};

template <typename Length>
RandomInstance random_instance(uint64_t seed, int count, uint64_t max_units, uint64_t first_steps,
                               Length length) {
  uint64_t state = seed;
  auto next = [&state](uint64_t bound) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (state >> 33) % bound;
  };
  RandomInstance r;
  for (int i = 0; i < count; ++i) {
    r.sizes.push_back(16 * (1 + next(max_units)));
    const int32_t first = static_cast<int32_t>(next(first_steps));
    r.firsts.push_back(first);
    r.lasts.push_back(first + static_cast<int32_t>(length(next)));
  }
  PlacementEngine engine(r.sizes, r.firsts, r.lasts);
  std::vector<int32_t> order(r.sizes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int32_t>(i);
  r.greedy = engine.place(order, PlacementEngine::Fit::kLowest, UINT64_MAX, &r.greedy_offsets);
  for (size_t i = 0; i < r.sizes.size(); ++i)
    r.items.push_back({r.sizes[i], r.firsts[i], r.lasts[i]});
  r.bound = live_bytes_lower_bound(r.items, 16);
  return r;
}

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

// The best top over every order of placing the items at their lowest offsets.
uint64_t best_top_over_all_orders(PlacementEngine& engine) {
  std::vector<int32_t> order(engine.num_items());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int32_t>(i);
  uint64_t best = UINT64_MAX;
  std::vector<uint64_t> offsets;
  do {
    best = std::min(best, engine.place(order, PlacementEngine::Fit::kLowest, UINT64_MAX, &offsets));
  } while (std::next_permutation(order.begin(), order.end()));
  return best;
}

// Random neighbourhoods of five items: with an ample budget the solver's top is the best that
// any placement order reaches, its offsets give that top, and nothing below it is found.
TEST(HoodSolverTest, MatchesTheBestOrderOnRandomNeighbourhoods) {
  uint64_t state = 12345;
  auto next = [&state](uint64_t bound) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (state >> 33) % bound;
  };
  for (int round = 0; round < 200; ++round) {
    std::vector<uint64_t> sizes;
    std::vector<int32_t> firsts, lasts;
    for (int i = 0; i < 5; ++i) {
      sizes.push_back(16 * (1 + next(12)));
      const int32_t first = static_cast<int32_t>(next(6));
      firsts.push_back(first);
      lasts.push_back(first + static_cast<int32_t>(next(4)));
    }
    PlacementEngine engine(sizes, firsts, lasts);
    const uint64_t best = best_top_over_all_orders(engine);
    engine.clear();
    HoodSolver solver;
    solver.reset(engine, {0, 1, 2, 3, 4});
    std::vector<uint64_t> offsets;
    ASSERT_TRUE(solver.solve(UINT64_MAX, 1000000, &offsets)) << "round " << round;
    uint64_t top = 0;
    std::vector<PlanItem> items;
    for (int i = 0; i < 5; ++i) {
      top = std::max(top, offsets[i] + sizes[i]);
      items.push_back({sizes[i], firsts[i], lasts[i]});
    }
    EXPECT_EQ(top, best) << "round " << round;
    EXPECT_TRUE(verify_offsets(items, offsets, top, 16).empty()) << "round " << round;
    EXPECT_FALSE(solver.solve(best, 1000000, &offsets)) << "round " << round;
  }
}

// The search visits children lowest offset first, then the larger item first: the first
// optimum found, the one kept, is pinned.
TEST(HoodSolverTest, KeepsTheFirstOptimumInItsCanonicalOrder) {
  PlacementEngine engine = tricky_chain_engine();
  engine.clear();
  HoodSolver solver;
  solver.reset(engine, {0, 1, 2, 3});
  std::vector<uint64_t> offsets;
  ASSERT_TRUE(solver.solve(UINT64_MAX, 1000, &offsets));
  EXPECT_EQ(offsets, (std::vector<uint64_t>{0, 160, 0, 144}));
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

// Two items that could share bytes, placed apart: the search brings the top down to the bound
// (two items are enough to search).
TEST(LocalSearchTest, TwoItemsAreEnoughToSearch) {
  PlacementEngine engine({32, 32}, {0, 2}, {1, 3});
  const std::vector<uint64_t> apart = {0, 32};
  LocalSearchResult r = improve_placement(engine, apart, 64, 32, 100, 1);
  EXPECT_EQ(r.total, 32u);
  EXPECT_EQ(r.offsets, (std::vector<uint64_t>{0, 0}));
}

// The search is deterministic in its seed, so its result on a fixed random instance is
// pinned: 400 items, 2000 iterations, every kind of move (rotations, swaps, shuffles and the
// exact solver) taken many times.
TEST(LocalSearchTest, ResultOnAFixedInstanceIsPinned) {
  const RandomInstance in =
      random_instance(99, 400, 64, 300, [](auto& next) { return next(next(8) == 0 ? 200 : 12); });
  PlacementEngine engine(in.sizes, in.firsts, in.lasts);
  const std::vector<PlanItem>& items = in.items;
  const uint64_t greedy = in.greedy;
  const uint64_t bound = in.bound;
  const std::vector<uint64_t>& offsets = in.greedy_offsets;
  const LocalSearchResult r = improve_placement(engine, offsets, greedy, bound, 2000, 11);
  EXPECT_TRUE(verify_offsets(items, r.offsets, r.total, 16).empty());
  uint64_t digest = 1469598103934665603ull;
  for (uint64_t offset : r.offsets) digest = (digest ^ offset) * 1099511628211ull;
  EXPECT_EQ(greedy, 18752u);
  EXPECT_EQ(bound, 16400u);
  EXPECT_EQ(r.total, 17392u);
  EXPECT_EQ(digest, 14181620238425731139ull);
}

// A search run in slices continues where it stopped: 300 iterations as 100 + 150 + 50 give
// exactly the plan of 300 at once, and a finished search runs no more.
TEST(LocalSearchTest, RunningInSlicesEqualsRunningAtOnce) {
  const RandomInstance in = random_instance(7, 200, 32, 150, [](auto& next) { return next(10); });
  PlacementEngine engine(in.sizes, in.firsts, in.lasts);
  const std::vector<PlanItem>& items = in.items;
  const uint64_t greedy = in.greedy;
  const uint64_t bound = in.bound;
  const std::vector<uint64_t>& offsets = in.greedy_offsets;
  const LocalSearchResult at_once = improve_placement(engine, offsets, greedy, bound, 300, 5);

  PlacementEngine own = engine.empty_copy();
  LocalSearch sliced(own, offsets, greedy, bound, 5);
  EXPECT_EQ(sliced.run(100), 100);
  EXPECT_EQ(sliced.run(150), 150);
  EXPECT_EQ(sliced.run(50), 50);
  EXPECT_FALSE(sliced.finished());
  EXPECT_EQ(sliced.best().offsets, at_once.offsets);
  EXPECT_EQ(sliced.best().total, at_once.total);
  EXPECT_TRUE(verify_offsets(items, at_once.offsets, at_once.total, 16).empty());
  EXPECT_EQ(greedy, 4528u);
  EXPECT_EQ(bound, 3632u);
  EXPECT_EQ(at_once.total, 3920u);
}

TEST(LocalSearchTest, AFinishedSearchRunsNoMore) {
  PlacementEngine engine = tricky_chain_engine();
  LocalSearch search(engine, {0, 304, 160, 0}, 336, 304, 7);
  EXPECT_FALSE(search.finished());
  EXPECT_EQ(search.run(2000), 3);  // the bound after three iterations
  EXPECT_TRUE(search.finished());
  EXPECT_EQ(search.best().total, 304u);
  EXPECT_EQ(search.run(10), 0);
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
