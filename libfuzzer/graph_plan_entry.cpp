#include <libfuzzer/graph_plan_entry.h>

#include <string>
#include <string_view>
#include <vector>

#include <harness/graph/graph_json.h>
#include <runtime_ext/planning/memory_plan.h>
#include <runtime_ext/planning/offset_planner.h>
#include <runtime_ext/planning/plan_verifier.h>

namespace devplan::fuzz {
namespace {

void require_message(const Error& error, const std::string& where, std::string& finding) {
  if (!error.ok() && error.message().empty()) {
    finding += where + ": error " + error_code_name(error.code()) + " without a message\n";
  }
}

}  // namespace

GraphPlanOutcome run_graph_plan(Span<const uint8_t> bytes) {
  GraphPlanOutcome outcome;
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  Result<std::vector<Graph>> graphs = read_graphs(text);
  if (!graphs.ok()) {
    require_message(graphs.error(), "read_graphs", outcome.finding);
    return outcome;
  }
  outcome.read = true;
  outcome.graphs = graphs->size();

  // Round trip: what is written reads back to graphs that are written identically.
  const std::string written = write_graphs(*graphs);
  Result<std::vector<Graph>> reread = read_graphs(written);
  if (!reread.ok()) {
    outcome.finding +=
        "write_graphs output does not read back: " + reread.error().to_string() + "\n";
  } else if (write_graphs(*reread) != written) {
    outcome.finding += "write_graphs(read_graphs(write_graphs(g))) differs from write_graphs(g)\n";
  }

  size_t tensors = 0;
  for (const Graph& graph : *graphs) tensors += graph.tensors.size();
  if (tensors > kMaxPlannedTensors) return outcome;

  bool first = true;
  bool first_ok = false;
  for (PlannerAlgorithm algorithm : all_planner_algorithms()) {
    const std::string name = planner_algorithm_name(algorithm);
    PlanOptions options;
    options.algorithm = algorithm;
    options.search_iterations = kGraphSearchIterations;
    Result<std::vector<MethodMemoryPlan>> plans = plan_methods(*graphs, options);
    if (first) {
      first_ok = plans.ok();
      first = false;
    } else if (plans.ok() != first_ok) {
      outcome.finding += "plan_methods " + name + (plans.ok() ? " succeeded" : " failed") +
                         " where naive " + (first_ok ? "succeeded" : "failed") + "\n";
    }
    if (!plans.ok()) {
      require_message(plans.error(), "plan_methods " + name, outcome.finding);
      continue;
    }
    ++outcome.planned;
    for (const MethodMemoryPlan& plan : *plans) {
      for (const PlanViolation& violation : verify_plan(plan)) {
        outcome.finding += name + " plan of '" + plan.method() +
                           "': " + plan_violation_kind_name(violation.kind) + ": " +
                           violation.message + "\n";
      }
      for (size_t b = 0; b < plan.buffers.size(); ++b) {
        if (plan.buffers[b].size < plan.buffers[b].lower_bound) {
          outcome.finding += name + " plan of '" + plan.method() + "': buffer " +
                             std::to_string(b) + " is " + std::to_string(plan.buffers[b].size) +
                             " B, below its lower bound " +
                             std::to_string(plan.buffers[b].lower_bound) + " B\n";
        }
      }
    }
  }
  return outcome;
}

}  // namespace devplan::fuzz
