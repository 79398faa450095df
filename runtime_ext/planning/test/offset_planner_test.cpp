#include <runtime_ext/planning/offset_planner.h>

#include <gtest/gtest.h>

#include <runtime_ext/planning/graph_gen.h>
#include <runtime_ext/planning/lifetime.h>
#include <runtime_ext/planning/plan_verifier.h>

namespace devplan {
namespace {

TEST(PlannerAlgorithmTest, NamesRoundTrip) {
  for (PlannerAlgorithm a : all_planner_algorithms()) {
    Result<PlannerAlgorithm> parsed = parse_planner_algorithm(planner_algorithm_name(a));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, a);
  }
  EXPECT_EQ(all_planner_algorithms().size(), 6u);
  Result<PlannerAlgorithm> bad = parse_planner_algorithm("Greedy");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(bad.error().message(),
            "unknown planner algorithm 'Greedy' (expected naive, greedy, greedy_breadth, search, "
            "exact or best)");
}

TEST(LowerBoundTest, LargestAlignedLiveTotal) {
  // 10 -> 16, 20 -> 32, 30 -> 32 at alignment 16.
  std::vector<PlanItem> items = {{10, 0, 1}, {20, 1, 2}, {30, 2, 2}, {100, -1, -1}};
  EXPECT_EQ(live_bytes_lower_bound(items, 16), 64u);  // step 2: 32 + 32
  EXPECT_EQ(live_bytes_lower_bound(items, 1), 50u);
  EXPECT_EQ(live_bytes_lower_bound({}, 16), 0u);
  // Saturates instead of wrapping.
  EXPECT_EQ(live_bytes_lower_bound({{UINT64_MAX - 8, 0, 0}, {UINT64_MAX - 8, 0, 0}}, 1),
            UINT64_MAX);
}

TEST(OffsetPlannerTest, NaiveIsTheSumOfAlignedSizes) {
  std::vector<PlanItem> items = {{10, 0, 0}, {20, 1, 1}, {30, 2, 2}, {5, -1, -1}};
  Result<OffsetPlan> plan = plan_offsets(items, PlannerAlgorithm::Naive);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->offsets, (std::vector<uint64_t>{0, 16, 48, 0}));
  EXPECT_EQ(plan->size, 80u);
  EXPECT_EQ(plan->algorithm, PlannerAlgorithm::Naive);
}

// The chain a -> b -> c -> d (16-byte units 10, 2, 9, 10): greedy by size stacks b on top
// (21 units); the optimum equals the lower bound (19 units).
std::vector<PlanItem> tricky_chain() { return {{160, 0, 1}, {32, 1, 2}, {144, 2, 3}, {160, 3, 4}}; }

TEST(OffsetPlannerTest, GreedyBySizeOnATrickyChain) {
  Result<OffsetPlan> plan = plan_offsets(tricky_chain(), PlannerAlgorithm::Greedy);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->offsets, (std::vector<uint64_t>{0, 304, 160, 0}));
  EXPECT_EQ(plan->size, 336u);
  EXPECT_EQ(live_bytes_lower_bound(tricky_chain(), 16), 304u);
}

TEST(OffsetPlannerTest, SearchAndBestReachTheOptimum) {
  for (PlannerAlgorithm a : {PlannerAlgorithm::Search, PlannerAlgorithm::Best}) {
    Result<OffsetPlan> plan = plan_offsets(tricky_chain(), a);
    ASSERT_TRUE(plan.ok());
    EXPECT_EQ(plan->size, 304u) << planner_algorithm_name(a);
    EXPECT_TRUE(verify_offsets(tricky_chain(), plan->offsets, plan->size, 16).empty());
  }
  EXPECT_EQ(plan_offsets(tricky_chain(), PlannerAlgorithm::Best)->algorithm,
            PlannerAlgorithm::Search);
}

TEST(OffsetPlannerTest, SameSizeChainOptimumIsTwoSlots) {
  // x0 -> x1 -> ... -> x9, 64 bytes each: two slots, alternating.
  std::vector<PlanItem> items;
  for (int i = 0; i < 10; ++i) items.push_back({64, i == 0 ? 0 : i - 1, i == 9 ? 8 : i});
  for (PlannerAlgorithm a : {PlannerAlgorithm::Greedy, PlannerAlgorithm::GreedyBreadth,
                             PlannerAlgorithm::Search, PlannerAlgorithm::Best}) {
    EXPECT_EQ(plan_offsets(items, a)->size, 128u) << planner_algorithm_name(a);
  }
  EXPECT_EQ(plan_offsets(items, PlannerAlgorithm::Naive)->size, 640u);
}

TEST(OffsetPlannerTest, GreedyBreadthPlacesTheWidestStepFirst) {
  // Step 1 is the widest (a, b, c live); breadth places its items largest first from 0.
  std::vector<PlanItem> items = {{16, 0, 1}, {64, 1, 1}, {32, 1, 2}, {48, 2, 2}};
  Result<OffsetPlan> plan = plan_offsets(items, PlannerAlgorithm::GreedyBreadth);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->offsets, (std::vector<uint64_t>{96, 0, 64, 0}));
  EXPECT_EQ(plan->size, 112u);
}

TEST(OffsetPlannerTest, ZeroSizeAndUnplannedItemsTakeNoRoom) {
  std::vector<PlanItem> items = {{0, 0, 3}, {16, 0, 0}, {16, -1, -1}, {16, 1, 1}};
  for (PlannerAlgorithm a : all_planner_algorithms()) {
    Result<OffsetPlan> plan = plan_offsets(items, a);
    ASSERT_TRUE(plan.ok());
    if (a == PlannerAlgorithm::Naive) {
      EXPECT_EQ(plan->size, 32u);
      continue;
    }
    EXPECT_EQ(plan->size, 16u) << planner_algorithm_name(a);
    EXPECT_EQ(plan->offsets[0], 0u);
    EXPECT_EQ(plan->offsets[2], 0u);
  }
  EXPECT_EQ(plan_offsets({}, PlannerAlgorithm::Best)->size, 0u);
}

TEST(OffsetPlannerTest, RejectsBadInput) {
  OffsetPlannerOptions opts;
  opts.alignment = 12;
  Result<OffsetPlan> plan = plan_offsets({{16, 0, 0}}, PlannerAlgorithm::Greedy, opts);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(plan.error().message(), "alignment 12 is not a power of two");

  plan = plan_offsets({{16, 0, 0}, {16, 3, 2}}, PlannerAlgorithm::Greedy);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().message(), "item 1: lifetime 3..2 ends before it starts");

  plan = plan_offsets({{UINT64_MAX / 2, 0, 0}, {UINT64_MAX / 2, 1, 1}, {64, 2, 2}},
                      PlannerAlgorithm::Best);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.code(), ErrorCode::OutOfResources);
  EXPECT_EQ(plan.error().message(), "the planned sizes (aligned to 16) sum past 2^64 bytes");

  plan = plan_offsets({{UINT64_MAX - 3, 0, 0}}, PlannerAlgorithm::Naive);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.code(), ErrorCode::OutOfResources);
}

TEST(OffsetPlannerTest, SparseHugeStepNumbersAreFine) {
  const int32_t kMax = INT32_MAX;
  std::vector<PlanItem> items = {
      {16, 0, kMax}, {16, 1000000000, kMax}, {32, 5, 999999999}, {16, kMax, kMax}};
  EXPECT_EQ(live_bytes_lower_bound(items, 16), 48u);
  for (PlannerAlgorithm a : all_planner_algorithms()) {
    Result<OffsetPlan> plan = plan_offsets(items, a);
    ASSERT_TRUE(plan.ok());
    EXPECT_TRUE(verify_offsets(items, plan->offsets, plan->size, 16).empty());
    if (a != PlannerAlgorithm::Naive) {
      EXPECT_EQ(plan->size, 48u) << planner_algorithm_name(a);
    }
  }
}

TEST(OffsetPlannerTest, AlignmentRoundsSizesAndOffsets) {
  OffsetPlannerOptions opts;
  opts.alignment = 64;
  std::vector<PlanItem> items = {{1, 0, 1}, {65, 1, 2}, {3, 2, 2}};
  Result<OffsetPlan> plan = plan_offsets(items, PlannerAlgorithm::Best, opts);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->size, 192u);  // step 1 or 2: 64 + 128
  for (uint64_t off : plan->offsets) EXPECT_EQ(off % 64, 0u);
  EXPECT_TRUE(verify_offsets(items, plan->offsets, plan->size, 64).empty());
}

TEST(OffsetPlannerTest, SearchBudgetZeroKeepsTheBestSeed) {
  OffsetPlannerOptions opts;
  opts.search_iterations = 0;
  Result<OffsetPlan> plan = plan_offsets(tricky_chain(), PlannerAlgorithm::Search, opts);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->size, 336u);  // deterministic: the best greedy seed, no search steps
  EXPECT_EQ(default_search_iterations(0), 0);
  EXPECT_EQ(default_search_iterations(1), 0);
  EXPECT_EQ(default_search_iterations(10), 5000);
  EXPECT_EQ(default_search_iterations(2000), 40000);
  EXPECT_EQ(default_search_iterations(100000), 100000);
}

TEST(OffsetPlannerTest, DefaultSearchIterationsAreTwentyPerItemClampedBothWays) {
  EXPECT_EQ(default_search_iterations(2), 5000);  // the first size with a search
  EXPECT_EQ(default_search_iterations(250), 5000);
  EXPECT_EQ(default_search_iterations(251), 5020);  // the first above the floor
  EXPECT_EQ(default_search_iterations(4999), 99980);
  EXPECT_EQ(default_search_iterations(5000), 100000);
  EXPECT_EQ(default_search_iterations(5001), 100000);  // the ceiling
}

TEST(OffsetPlannerTest, NaiveSumUpToTheLastAlignedSizeBelow2To64Fits) {
  const uint64_t half = uint64_t{1} << 63;
  Result<OffsetPlan> fits =
      plan_offsets({{half, 0, 0}, {half - 16, 1, 1}}, PlannerAlgorithm::Naive);
  ASSERT_TRUE(fits.ok()) << fits.error();
  EXPECT_EQ(fits->size, 18446744073709551600u);
  EXPECT_EQ(fits->offsets, (std::vector<uint64_t>{0, half}));

  // half - 15 rounds up to half: the sum is 2^64.
  Result<OffsetPlan> over =
      plan_offsets({{half, 0, 0}, {half - 15, 1, 1}}, PlannerAlgorithm::Naive);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.code(), ErrorCode::OutOfResources);
  EXPECT_EQ(over.error().message(), "the planned sizes (aligned to 16) sum past 2^64 bytes");
}

// Items of a generated graph's host tensors, from their lifetimes.
std::vector<PlanItem> generated_items(GraphFamily family, size_t n, uint64_t seed) {
  GraphGenOptions o;
  o.family = family;
  o.num_tensors = n;
  o.seed = seed;
  Graph g = generate_graph(o);
  std::vector<Lifetime> life = compute_lifetimes(g);
  std::vector<PlanItem> items;
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    items.push_back(PlanItem{g.tensors[t].nbytes, life[t].first, life[t].last});
  }
  return items;
}

TEST(OffsetPlannerTest, EveryAlgorithmGivesAValidDeterministicPlan) {
  for (GraphFamily f : all_graph_families()) {
    std::vector<PlanItem> items = generated_items(f, 300, 11);
    const uint64_t lb = live_bytes_lower_bound(items, 16);
    uint64_t best_size = 0;
    for (PlannerAlgorithm a : all_planner_algorithms()) {
      Result<OffsetPlan> p1 = plan_offsets(items, a);
      Result<OffsetPlan> p2 = plan_offsets(items, a);
      ASSERT_TRUE(p1.ok());
      ASSERT_TRUE(p2.ok());
      EXPECT_EQ(p1->offsets, p2->offsets)
          << graph_family_name(f) << " " << planner_algorithm_name(a);
      EXPECT_EQ(p1->size, p2->size);
      EXPECT_GE(p1->size, lb);
      std::vector<PlanViolation> v = verify_offsets(items, p1->offsets, p1->size, 16);
      EXPECT_TRUE(v.empty()) << graph_family_name(f) << " " << planner_algorithm_name(a) << ": "
                             << (v.empty() ? "" : v[0].message);
      if (a == PlannerAlgorithm::Best) best_size = p1->size;
    }
    for (PlannerAlgorithm a : all_planner_algorithms()) {
      EXPECT_LE(best_size, plan_offsets(items, a)->size) << graph_family_name(f);
    }
  }
}

TEST(OffsetPlannerTest, DifferentSeedsStillGiveValidPlans) {
  std::vector<PlanItem> items = generated_items(GraphFamily::kRandomDag, 400, 3);
  for (uint64_t seed : {1u, 2u, 3u}) {
    OffsetPlannerOptions opts;
    opts.seed = seed;
    opts.search_iterations = 500;
    Result<OffsetPlan> plan = plan_offsets(items, PlannerAlgorithm::Search, opts);
    ASSERT_TRUE(plan.ok());
    EXPECT_TRUE(verify_offsets(items, plan->offsets, plan->size, 16).empty());
  }
}

// FNV-1a over the offsets.
uint64_t offsets_digest(const std::vector<uint64_t>& offsets) {
  uint64_t digest = 1469598103934665603ull;
  for (uint64_t offset : offsets) digest = (digest ^ offset) * 1099511628211ull;
  return digest;
}

// A budget too small to reach the lower bound: the search returns the best plan it found, a
// valid one, the same on every run, never larger than the greedy seeds, and (the budget being
// a count of iterations, not time) exactly the pinned plan.
TEST(OffsetPlannerTest, SmallStepBudgetGivesTheSamePinnedPlanEveryRun) {
  const std::vector<PlanItem> items = generated_items(GraphFamily::kChain, 2000, 11);
  const uint64_t lb = live_bytes_lower_bound(items, 16);
  const uint64_t greedy = plan_offsets(items, PlannerAlgorithm::Greedy)->size;
  const uint64_t breadth = plan_offsets(items, PlannerAlgorithm::GreedyBreadth)->size;
  OffsetPlannerOptions opts;
  opts.search_iterations = 200;
  opts.budget_steps = 0;  // best without its exact search: the local search's budget decides
  for (PlannerAlgorithm a : {PlannerAlgorithm::Search, PlannerAlgorithm::Best}) {
    Result<OffsetPlan> p1 = plan_offsets(items, a, opts);
    Result<OffsetPlan> p2 = plan_offsets(items, a, opts);
    ASSERT_TRUE(p1.ok());
    ASSERT_TRUE(p2.ok());
    std::vector<PlanViolation> v = verify_offsets(items, p1->offsets, p1->size, 16);
    EXPECT_TRUE(v.empty()) << (v.empty() ? "" : v[0].message);
    EXPECT_EQ(p1->offsets, p2->offsets);
    EXPECT_EQ(p1->size, p2->size);
    EXPECT_LE(p1->size, greedy);
    EXPECT_LE(p1->size, breadth);
    EXPECT_GT(p1->size, lb);  // the budget ran out before the bound
    EXPECT_EQ(p1->size, 17792u) << planner_algorithm_name(a);
    EXPECT_EQ(offsets_digest(p1->offsets), 12311306435459119683ull) << planner_algorithm_name(a);
  }
  EXPECT_EQ(plan_offsets(items, PlannerAlgorithm::Best, opts)->algorithm, PlannerAlgorithm::Search);
  EXPECT_EQ(greedy, 23040u);
  EXPECT_EQ(breadth, 22400u);
  EXPECT_EQ(lb, 16384u);
  // With its exact search (default budget), best closes the gap the small local search left
  // and proves it: the plan is at the lower bound.
  opts.budget_steps = -1;
  Result<OffsetPlan> exact = plan_offsets(items, PlannerAlgorithm::Best, opts);
  ASSERT_TRUE(exact.ok());
  EXPECT_EQ(exact->size, 16384u);
  EXPECT_EQ(exact->lower_bound, 16384u);
  EXPECT_TRUE(exact->optimal());
  EXPECT_EQ(exact->algorithm, PlannerAlgorithm::Exact);
  EXPECT_TRUE(verify_offsets(items, exact->offsets, exact->size, 16).empty());
}

// A larger budget runs each of the two searches at least as far, so its plan is never larger:
// here from the best greedy seed down to the lower bound (16384).
TEST(OffsetPlannerTest, LargerStepBudgetsGiveNoLargerPlans) {
  const std::vector<PlanItem> items = generated_items(GraphFamily::kChain, 2000, 11);
  std::vector<uint64_t> sizes;
  for (int64_t budget : {0, 40, 200, 2000}) {
    OffsetPlannerOptions opts;
    opts.search_iterations = budget;
    sizes.push_back(plan_offsets(items, PlannerAlgorithm::Search, opts)->size);
  }
  EXPECT_EQ(sizes, (std::vector<uint64_t>{21888, 21248, 17792, 16384}));
}

}  // namespace
}  // namespace devplan
