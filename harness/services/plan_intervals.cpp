#include <harness/services/plan_intervals.h>

#include <algorithm>
#include <chrono>
#include <numeric>

#include <runtime_ext/planning/exact_planner.h>

namespace devplan::harness {

namespace {

// The rows for the heuristics, which number steps with int32: lifetimes by rank of their ends
// (order, and so every overlap, kept), sizes rounded up to the largest alignment.
std::vector<PlanItem> heuristic_items(const std::vector<IntervalRow>& rows) {
  std::vector<int64_t> points;
  for (const IntervalRow& r : rows) {
    points.push_back(r.lower);
    points.push_back(r.upper);
  }
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  auto rank = [&](int64_t p) {
    return static_cast<int32_t>(std::lower_bound(points.begin(), points.end(), p) - points.begin());
  };
  std::vector<PlanItem> items;
  for (const IntervalRow& r : rows) {
    items.push_back(PlanItem{r.size, rank(r.lower), rank(r.upper) - 1});
  }
  return items;
}

}  // namespace

Result<IntervalPlan> plan_interval_rows(const std::vector<IntervalRow>& rows,
                                        const IntervalPlanOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  const PlannerAlgorithm algorithm = options.algorithm;
  const std::optional<uint64_t> capacity = options.capacity;
  uint64_t alignment = 1;
  // The exact search runs in units (fewer heights to probe): a divisor of every size, and a
  // divisor or a multiple of every alignment, so that a buffer on others, aligned, still sits
  // at a whole number of units.
  uint64_t unit = 0;
  for (const IntervalRow& r : rows) {
    alignment = std::max(alignment, r.alignment);
    unit = std::gcd(unit, r.size);
  }
  for (bool changed = unit > 1; changed;) {
    changed = false;
    for (const IntervalRow& r : rows) {
      if (unit % r.alignment != 0 && r.alignment % unit != 0) {
        unit = std::gcd(unit, r.alignment);
        changed = true;
      }
    }
  }
  unit = std::max<uint64_t>(unit, 1);
  std::vector<ExactItem> exact_items;
  for (const IntervalRow& r : rows) {
    const uint64_t aligned = r.alignment % unit == 0 ? r.alignment / unit : 1;
    exact_items.push_back(ExactItem{r.size / unit, r.lower, r.upper, aligned});
  }
  const std::vector<PlanItem> items = heuristic_items(rows);
  OffsetPlannerOptions heuristic_options;
  heuristic_options.alignment = alignment;
  heuristic_options.budget_steps = 0;  // the exact search below runs on the rows as they are
  auto heuristics = [&](PlannerAlgorithm which) -> Result<OffsetPlan> {
    return plan_offsets(items, which, heuristic_options);
  };

  IntervalPlan plan;
  plan.live_bound = exact_live_bytes(exact_items) * unit;
  plan.proven_bound = plan.live_bound;
  auto take = [&](const OffsetPlan& heuristic) {
    uint64_t height = 0;  // in bytes, as the heuristics' offsets are
    for (size_t k = 0; k < rows.size(); ++k) {
      if (rows[k].size > 0) height = std::max(height, heuristic.offsets[k] + rows[k].size);
    }
    if (!plan.offsets.empty() && height >= plan.height) return;
    plan.offsets = heuristic.offsets;
    plan.height = height;
    plan.algorithm = heuristic.algorithm;
  };
  const bool exact = algorithm == PlannerAlgorithm::Exact || algorithm == PlannerAlgorithm::Best;
  if (!exact) {
    DEVPLAN_ASSIGN_OR_RETURN(OffsetPlan heuristic, heuristics(algorithm));
    take(heuristic);
    return plan;
  }
  // A decision (with a capacity) starts from the greedy orders only, and runs the local search
  // only when the exact search leaves the question open: it is slower than most decisions.
  const bool decision = capacity.has_value();
  if (decision) {
    for (PlannerAlgorithm which : {PlannerAlgorithm::Greedy, PlannerAlgorithm::GreedyBreadth}) {
      DEVPLAN_ASSIGN_OR_RETURN(OffsetPlan heuristic, heuristics(which));
      take(heuristic);
    }
  } else {
    DEVPLAN_ASSIGN_OR_RETURN(OffsetPlan heuristic, heuristics(PlannerAlgorithm::Best));
    take(heuristic);
  }
  std::vector<uint64_t> incumbent(rows.size());
  for (size_t k = 0; k < rows.size(); ++k) incumbent[k] = plan.offsets[k] / unit;
  const int64_t budget = options.budget_steps >= 0 ? options.budget_steps : kUnlimitedSteps;
  ExactDeadline deadline;
  const std::optional<double> seconds =
      options.time_limit
          ? options.time_limit
          : (options.budget_steps >= 0
                 ? std::nullopt
                 : std::optional<double>(decision ? kDecisionSeconds : kMinimizeSeconds));
  if (seconds) {
    deadline = started + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                             std::chrono::duration<double>(*seconds));
  }
  const uint64_t target = capacity ? *capacity / unit : 0;
  // A capacity below one unit: no plan with a buffer of some size fits; the bound proves it.
  ExactPlan searched = target == 0 && capacity
                           ? minimize_exact(exact_items, incumbent, 0)
                           : minimize_exact(exact_items, incumbent, budget, target, target,
                                            deadline, ExactBranching::Portfolio);
  const uint64_t searched_height = searched.height * unit;
  if (algorithm == PlannerAlgorithm::Exact || searched_height < plan.height) {
    plan.algorithm = PlannerAlgorithm::Exact;
  }
  plan.offsets = std::move(searched.offsets);
  for (uint64_t& o : plan.offsets) o *= unit;
  plan.height = searched_height;
  plan.proven_bound = std::max(plan.live_bound, searched.lower_bound * unit);
  plan.steps = searched.steps;
  plan.timed_out = searched.timed_out;
  if (decision && plan.height > *capacity && plan.proven_bound <= *capacity) {
    // Still open: report the lowest plan the heuristics reach too.
    DEVPLAN_ASSIGN_OR_RETURN(OffsetPlan heuristic, heuristics(PlannerAlgorithm::Best));
    take(heuristic);
  }
  return plan;
}

}  // namespace devplan::harness
