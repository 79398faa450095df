// devplan plan GRAPH.json -o OUT.pte [--algorithm naive|greedy|greedy_breadth|search|best] [--json]
#include <harness/cli/args.h>
#include <harness/commands/planner_command_args.h>
#include <harness/commands/command.h>
#include <harness/graph/graph_json.h>
#include <harness/report/json_writer.h>
#include <runtime_ext/planning/memory_plan.h>
#include <runtime_ext/planning/program_emitter.h>

#include <cstdio>

namespace devplan::harness {
namespace {

constexpr const char* kUsage =
    "usage: devplan plan GRAPH.json -o OUT.pte [--algorithm naive|greedy|greedy_breadth|search|best]\n"
    "                   [--json]\n"
    "  plans each method's tensors per device (CPU buffers first, then devices), inserts the\n"
    "  host/device copies, writes the program and reports each buffer against its lower bound";

double ratio(const PlannedBuffer& b) { return size_over_lower_bound(b.size, b.lower_bound); }

}  // namespace

int plan_command(const Args& args, std::ostream& out, std::ostream& err) {
  const std::optional<PlannerCommandArgs> parsed =
      parse_planner_command(args, "plan", "GRAPH.json", kUsage, err);
  if (!parsed) return cli::kExitUsage;
  const std::string& file = parsed->input;
  const std::string& output = parsed->output;
  const bool json = parsed->json;
  auto fail = [&](const Error& e) { return fail_planner_command(e, "plan", json, out, err); };
  Result<std::vector<Graph>> graphs = read_graphs_file(file);
  if (!graphs.ok()) return fail(graphs.error().with_context(file));
  PlanOptions options;
  options.algorithm = parsed->algorithm;
  Result<std::vector<MethodMemoryPlan>> plans = plan_methods(*graphs, options);
  if (!plans.ok()) return fail(plans.error().with_context(file));
  Result<std::vector<uint8_t>> bytes = emit_program(*plans);
  if (!bytes.ok()) return fail(bytes.error());
  Error e = write_file(output, std::string(bytes->begin(), bytes->end()));
  if (!e.ok()) return fail(e);

  if (json) {
    JsonWriter w;
    w.begin_object();
    w.key("graph").value(file).key("output").value(output);
    w.key("algorithm").value(planner_algorithm_name(parsed->algorithm));
    w.key("methods").begin_array();
    for (const MethodMemoryPlan& p : *plans) {
      w.begin_object();
      w.key("name").value(p.method());
      w.key("h2d_copies").value(static_cast<uint64_t>(p.num_h2d_copies));
      w.key("d2h_copies").value(static_cast<uint64_t>(p.num_d2h_copies));
      w.key("buffers").begin_array();
      for (size_t b = 0; b < p.buffers.size(); ++b) {
        const PlannedBuffer& buf = p.buffers[b];
        w.begin_object();
        w.key("index").value(static_cast<uint64_t>(b));
        w.key("device").value(buf.device.to_string());
        w.key("size").value(buf.size);
        w.key("lower_bound").value(buf.lower_bound);
        w.key("ratio").value(ratio(buf));
        w.key("algorithm").value(planner_algorithm_name(buf.algorithm));
        w.key("tensors").value(static_cast<uint64_t>(buf.num_tensors));
        w.end_object();
      }
      w.end_array();
      w.end_object();
    }
    w.end_array().end_object();
    out << w.str() << "\n";
    return cli::kExitOk;
  }
  for (const MethodMemoryPlan& p : *plans) {
    out << "method " << p.method() << ": " << p.num_h2d_copies << " h2d copies, "
        << p.num_d2h_copies << " d2h copies inserted\n";
    for (size_t b = 0; b < p.buffers.size(); ++b) {
      const PlannedBuffer& buf = p.buffers[b];
      char line[200];
      std::snprintf(line, sizeof(line),
                    "  buffer %zu on %s: %llu B, lower bound %llu B, ratio %.4f (%s, %zu tensors)",
                    b, buf.device.to_string().c_str(), static_cast<unsigned long long>(buf.size),
                    static_cast<unsigned long long>(buf.lower_bound), ratio(buf),
                    planner_algorithm_name(buf.algorithm), buf.num_tensors);
      out << line << "\n";
    }
  }
  out << "wrote " << output << "\n";
  return cli::kExitOk;
}

}  // namespace devplan::harness
