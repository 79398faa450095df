// `devplan plan --intervals IN.csv [--capacity SIZE] [-o OUT.csv] [--json]`: plans an instance
// in the field's CSV format (harness/graph/interval_csv.h) with the same planners as graphs.
//
// The heuristics plan it first (sizes rounded up to the largest alignment of the instance);
// `exact` and `best` then run the exact search on the rows as they are (each row's own
// alignment), from that plan. With a capacity, the search decides at the capacity first and
// stops once a plan fits.
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
  PlannerAlgorithm algorithm = PlannerAlgorithm::Naive;  // the plan's
  bool optimal() const { return height == proven_bound; }
};

// `budget_steps` negative: default_exact_steps(algorithm).
Result<IntervalPlan> plan_interval_rows(const std::vector<IntervalRow>& rows,
                                        PlannerAlgorithm algorithm, int64_t budget_steps,
                                        std::optional<uint64_t> capacity);

}  // namespace devplan::harness
