#include <harness/commands/plan_intervals.h>

#include <algorithm>

#include <harness/cli/byte_size.h>
#include <harness/cli/exit_codes.h>
#include <harness/commands/command.h>
#include <harness/json/json.h>
#include <harness/report/json_document.h>
#include <harness/report/json_reports.h>
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

int plan_intervals_command(const PlannerCommandArgs& args, std::ostream& out, std::ostream& err) {
  const std::string& file = args.intervals;
  auto bad_input = [&](const Error& e) {
    if (args.json) {
      out << error_json(e) << "\n";
    } else {
      err << "devplan plan: " << e.to_string() << "\n";
    }
    return cli::kExitUsage;
  };
  Result<std::vector<uint8_t>> bytes = read_file(file);
  if (!bytes.ok()) return bad_input(bytes.error().with_context(file));
  Result<IntervalTable> table = parse_interval_csv(std::string(bytes->begin(), bytes->end()), file);
  if (!table.ok()) return bad_input(table.error());
  Result<IntervalPlan> plan =
      plan_interval_rows(table->rows, args.algorithm, args.budget_steps, args.capacity);
  if (!plan.ok()) return fail_command(plan.error().with_context(file), "plan", args.json, out, err);
  const bool fits = !args.capacity || plan->height <= *args.capacity;
  const std::string csv = write_interval_csv(*table, plan->offsets);
  if (fits && !args.output.empty()) {
    Error e = write_file(args.output, csv);
    if (!e.ok()) return fail_command(e, "plan", args.json, out, err);
  }
  if (args.json) {
    Json doc = json_document();
    doc["intervals"] = file;
    doc["buffers"] = table->rows.size();
    doc["algorithm"] = planner_algorithm_name(plan->algorithm);
    doc["height"] = plan->height;
    doc["lower_bound"] = plan->live_bound;
    doc["proven_bound"] = plan->proven_bound;
    doc["optimal"] = plan->optimal();
    doc["steps"] = plan->steps;
    if (args.capacity) {
      doc["capacity"] = *args.capacity;
      doc["fits"] = fits;
    }
    if (fits && !args.output.empty()) doc["output"] = args.output;
    out << write_json(doc) << "\n";
  } else if (fits && args.output.empty()) {
    out << csv;
  }
  std::ostream& summary = args.json ? err : (args.output.empty() ? err : out);
  if (!args.json || !fits) {
    summary << file << ": " << table->rows.size() << " buffers, height " << plan->height
            << " B, live-bytes bound " << plan->live_bound << " B, "
            << optimality_text(plan->height, plan->proven_bound) << " (proven bound "
            << plan->proven_bound << " B, " << planner_algorithm_name(plan->algorithm) << ", "
            << plan->steps << " search steps)\n";
  }
  if (!fits) {
    err << "devplan plan: " << file << " does not fit within " << *args.capacity << " B: "
        << (plan->proven_bound > *args.capacity ? "proven (no plan is below "
                                                : "none found within the budget (best ")
        << (plan->proven_bound > *args.capacity ? plan->proven_bound : plan->height) << " B)"
        << (plan->proven_bound > *args.capacity ? "" : "; a larger --budget-steps searches further")
        << "\n";
    return cli::kExitError;
  }
  if (!args.output.empty() && !args.json) out << "wrote " << args.output << "\n";
  return cli::kExitOk;
}

}  // namespace devplan::harness
