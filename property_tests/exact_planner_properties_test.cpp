// Properties of the exact offset planner (runtime_ext/planning/exact_planner.h) against a brute
// force: on every small instance its plan is valid, it proves optimality, and its height is
// the brute-force optimum. Offsets are per-item aligned.
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <runtime_ext/planning/exact_canonical_search.h>
#include <runtime_ext/planning/exact_planner.h>
#include <runtime_ext/planning/exact_search.h>
#include <runtime_ext/planning/tight_instances.h>
#include "property.h"

namespace devplan {
namespace testing {
namespace {

rc::Gen<std::vector<ExactItem>> gen_small_instance() {
  return rc::gen::exec([] {
    const size_t n = *rc::gen::inRange<size_t>(1, 9);
    std::vector<ExactItem> items;
    for (size_t i = 0; i < n; ++i) {
      ExactItem it;
      it.size = *rc::gen::inRange<uint64_t>(1, 33);
      it.lower = *rc::gen::inRange<int64_t>(0, 8);
      it.upper = it.lower + *rc::gen::inRange<int64_t>(1, 6);
      it.alignment = *rc::gen::element<uint64_t>(1, 1, 2, 4, 8);
      items.push_back(it);
    }
    return items;
  });
}

bool overlap_in_time(const ExactItem& a, const ExactItem& b) {
  return a.lower < b.upper && b.lower < a.upper;
}

uint64_t align(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// Empty when `offsets` is a valid plan of `items` within `capacity`, else what is wrong.
std::string plan_problem(const std::vector<ExactItem>& items, const std::vector<uint64_t>& offsets,
                         uint64_t capacity) {
  if (offsets.size() != items.size()) return "one offset per item expected";
  for (size_t i = 0; i < items.size(); ++i) {
    if (offsets[i] % items[i].alignment != 0) return "item " + std::to_string(i) + " misaligned";
    if (offsets[i] + items[i].size > capacity) return "item " + std::to_string(i) + " too high";
    for (size_t j = 0; j < i; ++j) {
      if (overlap_in_time(items[i], items[j]) && offsets[i] < offsets[j] + items[j].size &&
          offsets[j] < offsets[i] + items[i].size) {
        return "items " + std::to_string(j) + " and " + std::to_string(i) + " share bytes";
      }
    }
  }
  return "";
}

// The optimum by brute force: every order of the items, each placed at its lowest aligned
// offset clear of the items placed before it. Placing the items of an optimal gravity-packed
// plan in offset order reproduces it, so the smallest height over all orders is the optimum.
uint64_t brute_force_optimum(const std::vector<ExactItem>& items) {
  std::vector<size_t> order(items.size());
  std::iota(order.begin(), order.end(), 0);
  uint64_t best = UINT64_MAX;
  do {
    std::vector<uint64_t> offsets(items.size(), 0);
    uint64_t height = 0;
    for (size_t k = 0; k < order.size(); ++k) {
      const ExactItem& it = items[order[k]];
      // Candidates: 0 and every placed, time-overlapping item's top, aligned.
      uint64_t chosen = UINT64_MAX;
      for (size_t c = 0; c <= k; ++c) {
        uint64_t at = 0;
        if (c < k) {
          const ExactItem& below = items[order[c]];
          if (!overlap_in_time(it, below)) continue;
          at = align(offsets[order[c]] + below.size, it.alignment);
        }
        bool clear = true;
        for (size_t d = 0; d < k && clear; ++d) {
          const ExactItem& other = items[order[d]];
          clear = !overlap_in_time(it, other) || at >= offsets[order[d]] + other.size ||
                  offsets[order[d]] >= at + it.size;
        }
        if (clear) chosen = std::min(chosen, at);
      }
      offsets[order[k]] = chosen;
      height = std::max(height, chosen + it.size);
    }
    best = std::min(best, height);
  } while (std::next_permutation(order.begin(), order.end()));
  return best;
}

DEVPLAN_PROP(ExactPlanner, EqualsTheBruteForceOptimumOnUpToEightBuffers, ()) {
  const std::vector<ExactItem> items = *gen_small_instance();
  const uint64_t optimum = brute_force_optimum(items);
  const ExactPlan plan = minimize_exact(items, {}, 1000000);
  RC_ASSERT(plan_problem(items, plan.offsets, plan.height).empty());
  RC_ASSERT(plan.height == exact_height(items, plan.offsets));
  RC_ASSERT(plan.optimal());
  RC_ASSERT(plan.height == optimum);
  // Deciding at the optimum finds a plan; one byte below, the search proves there is none.
  const ExactDecision at = decide_exact(items, optimum, 1000000);
  RC_ASSERT(at.outcome == ExactOutcome::Fits);
  RC_ASSERT(plan_problem(items, at.offsets, optimum).empty());
  RC_ASSERT(decide_exact(items, optimum - 1, 1000000).outcome == ExactOutcome::DoesNotFit);
  // Each way to branch on its own is complete too, and so is the portfolio.
  for (ExactBranching way :
       {ExactBranching::RunStarts, ExactBranching::AnyFullPoint, ExactBranching::Portfolio}) {
    const ExactDecision one_way = decide_exact(items, optimum, 1000000, way);
    RC_ASSERT(one_way.outcome == ExactOutcome::Fits);
    RC_ASSERT(plan_problem(items, one_way.offsets, optimum).empty());
    RC_ASSERT(decide_exact(items, optimum - 1, 1000000, way).outcome == ExactOutcome::DoesNotFit);
  }
}

// CanonicalSearch alone, in each preorder, and minimize_exact without a limit of steps.
DEVPLAN_PROP(ExactPlanner, TheCanonicalSweepEqualsTheBruteForceInEveryPreorder, ()) {
  const std::vector<ExactItem> items = *gen_small_instance();
  const uint64_t optimum = brute_force_optimum(items);
  internal::CanonicalSearch canonical(items);
  for (internal::CanonicalOrder order :
       {internal::CanonicalOrder::WidthAreaTotal, internal::CanonicalOrder::TotalAreaWidth,
        internal::CanonicalOrder::TotalWidthArea}) {
    const ExactDecision at = canonical.decide(optimum, 1000000, order);
    RC_ASSERT(at.outcome == ExactOutcome::Fits);
    RC_ASSERT(plan_problem(items, at.offsets, optimum).empty());
    RC_ASSERT(canonical.decide(optimum - 1, 1000000, order).outcome == ExactOutcome::DoesNotFit);
  }
  const ExactPlan plan =
      minimize_exact(items, {}, kUnlimitedSteps, 0, 0, {}, ExactBranching::Portfolio);
  RC_ASSERT(plan.optimal());
  RC_ASSERT(plan.height == optimum);
  RC_ASSERT(plan_problem(items, plan.offsets, plan.height).empty());
}

// A decision given one step at a time, each going on where the last stopped, ends as one
// decision does: the same outcome, after the same number of steps.
DEVPLAN_PROP(ExactPlanner, ADecisionResumedStepByStepEndsAsOneDecision, ()) {
  const std::vector<ExactItem> items = *gen_small_instance();
  const uint64_t optimum = brute_force_optimum(items);
  const uint64_t capacity = *rc::gen::element(optimum - 1, optimum);
  const ExactDecision whole = decide_exact(items, capacity, 1000000, ExactBranching::Portfolio);
  internal::ExactSearch search(items);
  ExactDecision d;
  int64_t steps = 0;
  do {
    d = search.decide(capacity, 1, ExactBranching::Portfolio, {}, true);
    steps += d.steps;
  } while (d.outcome == ExactOutcome::BudgetExhausted && steps < 1000000);
  RC_ASSERT(d.outcome == whole.outcome);
  RC_ASSERT(d.outcome == (capacity == optimum ? ExactOutcome::Fits : ExactOutcome::DoesNotFit));
  if (d.outcome == ExactOutcome::Fits) RC_ASSERT(plan_problem(items, d.offsets, capacity).empty());
}

// Nothing depends on the order of the items or on the unit of time: the same instance with its
// items shuffled and its times scaled is decided after the same steps, with the same offsets.
DEVPLAN_PROP(ExactPlanner, ShuffledAndScaledInstancesAreDecidedTheSameWay, ()) {
  const std::vector<ExactItem> items = *gen_small_instance();
  const uint64_t optimum = brute_force_optimum(items);
  const uint64_t capacity = *rc::gen::element(optimum - 1, optimum);
  std::vector<size_t> perm(items.size());
  std::iota(perm.begin(), perm.end(), 0);
  for (size_t i = perm.size(); i > 1; --i) {
    std::swap(perm[i - 1], perm[*rc::gen::inRange<size_t>(0, i)]);
  }
  const int64_t scale = *rc::gen::inRange<int64_t>(1, 1000);
  std::vector<ExactItem> other;
  for (size_t k : perm) {
    ExactItem it = items[k];
    it.lower *= scale;
    it.upper *= scale;
    other.push_back(it);
  }
  const ExactDecision a = decide_exact(items, capacity, 1000000, ExactBranching::Portfolio);
  const ExactDecision b = decide_exact(other, capacity, 1000000, ExactBranching::Portfolio);
  RC_ASSERT(a.outcome == b.outcome);
  RC_ASSERT(a.steps == b.steps);
  if (a.outcome == ExactOutcome::Fits) {
    // Buffers of one kind may trade places; the plan is the same up to that.
    RC_ASSERT(plan_problem(other, b.offsets, capacity).empty());
  }
}

DEVPLAN_PROP(ExactPlanner, AnyBudgetGivesAValidPlanAndATrueBound, ()) {
  const std::vector<ExactItem> items = *gen_small_instance();
  const int64_t budget = *rc::gen::inRange<int64_t>(0, 50);
  const ExactPlan plan = minimize_exact(items, {}, budget);
  RC_ASSERT(plan_problem(items, plan.offsets, plan.height).empty());
  const uint64_t optimum = brute_force_optimum(items);
  RC_ASSERT(plan.lower_bound <= optimum);
  RC_ASSERT(plan.height >= optimum);
  RC_ASSERT(plan.lower_bound >= exact_live_bytes(items));
}

DEVPLAN_PROP(ExactPlanner, TightInstancesTileTheirRectangle, ()) {
  TightInstanceOptions o;
  o.buffers = *rc::gen::inRange<size_t>(1, 60);
  o.capacity = *rc::gen::inRange<uint64_t>(1, 1 << 12);
  o.duration = *rc::gen::inRange<int64_t>(1, 200);
  o.pinwheel_chance = *rc::gen::element(0.0, 0.1, 0.5);
  o.seed = *rc::gen::arbitrary<uint64_t>();
  const std::vector<ExactItem> items = generate_tight_instance(o);
  RC_ASSERT(!items.empty());
  RC_ASSERT(items.size() <= o.buffers);
  unsigned __int128 area = 0;
  for (const ExactItem& it : items) {
    RC_ASSERT(it.size >= 1u);
    RC_ASSERT(it.lower >= 0);
    RC_ASSERT(it.upper <= o.duration);
    RC_ASSERT(it.lower < it.upper);
    area += static_cast<unsigned __int128>(it.size) * static_cast<uint64_t>(it.upper - it.lower);
  }
  // Pieces of the rectangle: the areas add up, and every point in time has `capacity` live.
  RC_ASSERT(area == static_cast<unsigned __int128>(o.capacity) * static_cast<uint64_t>(o.duration));
  RC_ASSERT(exact_live_bytes(items) == o.capacity);
  const ExactDecision d = decide_exact(items, o.capacity, 2000000);
  RC_ASSERT(d.outcome == ExactOutcome::Fits);
  RC_ASSERT(plan_problem(items, d.offsets, o.capacity).empty());
  // Every section is full, so the search may branch at any point. One way on its own may run
  // out of budget (restarts are what bound that), but never proves that the tiling does not
  // fit, and what it finds is a plan.
  for (ExactBranching way : {ExactBranching::RunStarts, ExactBranching::AnyFullPoint}) {
    const ExactDecision one_way = decide_exact(items, o.capacity, 20000, way);
    RC_ASSERT(one_way.outcome != ExactOutcome::DoesNotFit);
    if (one_way.outcome == ExactOutcome::Fits) {
      RC_ASSERT(plan_problem(items, one_way.offsets, o.capacity).empty());
    }
  }
}

}  // namespace
}  // namespace testing
}  // namespace devplan
