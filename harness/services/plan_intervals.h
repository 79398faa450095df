// `devplan plan --intervals IN.csv [--capacity SIZE] [-o OUT.csv] [--json]`: plans an instance
// in the field's CSV format (harness/graph/interval_csv.h) with the same planners as graphs.
//
// The heuristics plan it first (sizes rounded up to the largest alignment of the instance);
// `exact` and `best` then run the exact search on the rows as they are (each row's own
// alignment), from that plan. With a capacity, the question is a decision: the greedy orders
// plan first, the exact search decides at the capacity and stops once a plan fits, and the
// local search runs only when the question stays open. Without --budget-steps the exact search
// has no limit of steps, only of time (kDecisionSeconds with a capacity, kMinimizeSeconds
// without, or the time limit given).
//
// Exit codes: 0 a plan (within the capacity, when one is given); 1 "does not fit within SIZE"
// with the best height found and the proven bound; 2 bad input (the file, line and column).
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <vector>

#include <harness/graph/interval_csv.h>
#include <runtime_ext/core/result.h>
#include <runtime_ext/planning/offset_planner.h>

namespace devplan::harness {

struct IntervalPlan {
  std::vector<uint64_t> offsets;  // per row
  uint64_t height = 0;            // max(offset + size)
  uint64_t live_bound = 0;        // the largest total of sizes live at one point
  uint64_t proven_bound = 0;      // proven: no plan is lower (>= live_bound)
  int64_t steps = 0;              // exact search nodes used
  bool timed_out = false;         // the time limit ended the exact search
  PlannerAlgorithm algorithm = PlannerAlgorithm::Naive;  // the plan's
  bool optimal() const { return height == proven_bound; }
};

// The default time limits of the exact search, in seconds, when no budget of steps is given.
constexpr double kDecisionSeconds = 60;
constexpr double kMinimizeSeconds = 10;

struct IntervalPlanOptions {
  PlannerAlgorithm algorithm = PlannerAlgorithm::Best;
  int64_t budget_steps = -1;         // the exact search's nodes; negative: no limit of steps
  std::optional<uint64_t> capacity;  // the question: a plan within this many bytes
  std::optional<double> time_limit;  // seconds; none: the default, unless budget_steps is given
};

Result<IntervalPlan> plan_interval_rows(const std::vector<IntervalRow>& rows,
                                        const IntervalPlanOptions& options);

}  // namespace devplan::harness
