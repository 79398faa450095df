// devplan plan GRAPH.json -o OUT.pte [--algorithm naive|greedy|greedy_breadth|search|exact|best]
//              [--budget-steps N] [--json]
// devplan plan --intervals IN.csv [--capacity SIZE] [-o OUT.csv] [--json]
// (plan_intervals_command.h)
#include <harness/commands/plan_command.h>
#include <harness/commands/plan_intervals_command.h>
#include <harness/graph/graph_json.h>
#include <harness/json/json.h>
#include <harness/options/byte_size.h>
#include <harness/options/planner_command_args.h>
#include <harness/output/json_document.h>
#include <harness/output/output_file.h>
#include <harness/values/exit_codes.h>
#include <runtime_ext/planning/memory_plan.h>
#include <runtime_ext/planning/program_emitter.h>

#include <cstdio>

namespace devplan::harness {
namespace {

constexpr const char* kDescription =
    "Plan a graph (JSON) per device: plans each method's tensors per device (CPU buffers first, "
    "then devices), inserts the host/device copies, writes the program and reports each buffer "
    "against its lower bound.";

double ratio(const PlannedBuffer& b) { return size_over_lower_bound(b.size, b.lower_bound); }

}  // namespace

int plan_command(const Args& args, std::ostream& out, std::ostream& err) {
  PlannerCommandArgs command_line;
  const PlannerCommandArgs* parsed = &command_line;
  if (std::optional<int> done = parse_planner_command(args, "plan", "GRAPH.json", kDescription,
                                                      &command_line, out, err, true)) {
    return *done;
  }
  if (!parsed->intervals.empty()) return plan_intervals_command(*parsed, out, err);
  const std::string& file = parsed->input;
  const std::string& output = parsed->output;
  const bool json = parsed->json;
  auto fail = [&](const Error& e) { return fail_command(e, "plan", json, out, err); };
  Result<std::vector<Graph>> graphs = read_graphs_file(file);
  if (!graphs.ok()) return fail(graphs.error().with_context(file));
  PlanOptions options;
  options.algorithm = parsed->algorithm;
  options.budget_steps = parsed->budget_steps;
  Result<std::vector<MethodMemoryPlan>> plans = plan_methods(*graphs, options);
  if (!plans.ok()) return fail(plans.error().with_context(file));
  Result<std::vector<uint8_t>> bytes = emit_program(*plans);
  if (!bytes.ok()) return fail(bytes.error());
  Error e = write_file(output, std::string(bytes->begin(), bytes->end()));
  if (!e.ok()) return fail(e);

  if (json) {
    Json doc = json_document();
    doc["graph"] = file;
    doc["output"] = output;
    doc["algorithm"] = planner_algorithm_name(parsed->algorithm);
    Json methods = Json::array();
    for (const MethodMemoryPlan& p : *plans) {
      Json buffers = Json::array();
      for (size_t b = 0; b < p.buffers.size(); ++b) {
        const PlannedBuffer& buf = p.buffers[b];
        buffers.push_back({{"index", b},
                           {"device", buf.device.to_string()},
                           {"size", buf.size},
                           {"lower_bound", buf.lower_bound},
                           {"ratio", ratio(buf)},
                           {"proven_bound", buf.proven_bound},
                           {"optimal", buf.size == buf.proven_bound},
                           {"algorithm", planner_algorithm_name(buf.algorithm)},
                           {"tensors", buf.num_tensors}});
      }
      methods.push_back({{"name", p.method()},
                         {"h2d_copies", p.num_h2d_copies},
                         {"d2h_copies", p.num_d2h_copies},
                         {"buffers", std::move(buffers)}});
    }
    doc["methods"] = std::move(methods);
    out << write_json(doc) << "\n";
    return cli::kExitOk;
  }
  for (const MethodMemoryPlan& p : *plans) {
    out << "method " << p.method() << ": " << p.num_h2d_copies << " h2d copies, "
        << p.num_d2h_copies << " d2h copies inserted\n";
    for (size_t b = 0; b < p.buffers.size(); ++b) {
      const PlannedBuffer& buf = p.buffers[b];
      char tail[96];
      std::snprintf(tail, sizeof(tail), ", ratio %.4f (%s, %zu tensors)", ratio(buf),
                    planner_algorithm_name(buf.algorithm), buf.num_tensors);
      out << "  buffer " << b << " on " << buf.device.to_string() << ": "
          << cli::format_bytes(buf.size) << ", lower bound " << cli::format_bytes(buf.lower_bound)
          << tail << ", " << optimality_text(buf.size, buf.proven_bound) << "\n";
    }
  }
  out << "wrote " << output << "\n";
  return cli::kExitOk;
}

}  // namespace devplan::harness
