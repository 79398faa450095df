#include <harness/commands/plan_intervals_command.h>

#include <harness/json/json.h>
#include <harness/output/json_document.h>
#include <harness/output/json_reports.h>
#include <harness/output/output_file.h>
#include <harness/services/plan_intervals.h>
#include <harness/values/exit_codes.h>
#include <runtime_ext/program/file_data_loader.h>

namespace devplan::harness {

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
  IntervalPlanOptions options;
  options.algorithm = args.algorithm;
  options.budget_steps = args.budget_steps;
  options.capacity = args.capacity;
  options.time_limit = args.time_limit;
  Result<IntervalPlan> plan = plan_interval_rows(table->rows, options);
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
    doc["timed_out"] = plan->timed_out;
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
    err << "devplan plan: " << file << " does not fit within " << *args.capacity << " B: ";
    if (plan->proven_bound > *args.capacity) {
      err << "proven (no plan is below " << plan->proven_bound << " B)\n";
    } else if (plan->timed_out) {
      err << "none found within the time limit (best " << plan->height
          << " B); a larger --time-limit searches further\n";
    } else {
      err << "none found within the budget (best " << plan->height
          << " B); a larger --budget-steps searches further\n";
    }
    return cli::kExitError;
  }
  if (!args.output.empty() && !args.json) out << "wrote " << args.output << "\n";
  return cli::kExitOk;
}

}  // namespace devplan::harness
