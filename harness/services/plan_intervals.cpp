#include <harness/services/plan_intervals.h>

#include <algorithm>

#include <runtime_ext/planning/exact_planner.h>

namespace devplan::harness {

Result<IntervalPlan> plan_interval_rows(const std::vector<IntervalRow>& rows,
                                        PlannerAlgorithm algorithm, int64_t budget_steps,
                                        std::optional<uint64_t> capacity) {
  // The heuristics number steps with int32: lifetimes by rank of their ends (order, and so
  // every overlap, kept).
  std::vector<int64_t> points;
  uint64_t alignment = 1;
  for (const IntervalRow& r : rows) {
    points.push_back(r.lower);
    points.push_back(r.upper);
    alignment = std::max(alignment, r.alignment);
  }
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  auto rank = [&](int64_t p) {
    return static_cast<int32_t>(std::lower_bound(points.begin(), points.end(), p) - points.begin());
  };
  std::vector<PlanItem> items;
  std::vector<ExactItem> exact_items;
  for (const IntervalRow& r : rows) {
    items.push_back(PlanItem{r.size, rank(r.lower), rank(r.upper) - 1});
    exact_items.push_back(ExactItem{r.size, r.lower, r.upper, r.alignment});
  }
  const bool exact = algorithm == PlannerAlgorithm::Exact || algorithm == PlannerAlgorithm::Best;
  OffsetPlannerOptions options;
  options.alignment = alignment;
  options.budget_steps = 0;  // the exact search below runs on the rows as they are
  DEVPLAN_ASSIGN_OR_RETURN(
      OffsetPlan heuristic,
      plan_offsets(items, exact ? PlannerAlgorithm::Best : algorithm, options));
  IntervalPlan plan;
  plan.algorithm = heuristic.algorithm;
  plan.live_bound = exact_live_bytes(exact_items);
  plan.offsets = heuristic.offsets;
  plan.height = exact_height(exact_items, plan.offsets);
  plan.proven_bound = plan.live_bound;
  if (!exact) return plan;
  const int64_t budget = budget_steps >= 0 ? budget_steps : default_exact_steps(algorithm);
  const uint64_t target = capacity.value_or(0);
  ExactPlan searched = minimize_exact(exact_items, heuristic.offsets, budget, target, target);
  if (algorithm == PlannerAlgorithm::Exact || searched.height < plan.height) {
    plan.algorithm = PlannerAlgorithm::Exact;
  }
  plan.offsets = std::move(searched.offsets);
  plan.height = searched.height;
  plan.proven_bound = std::max(plan.live_bound, searched.lower_bound);
  plan.steps = searched.steps;
  return plan;
}

}  // namespace devplan::harness
