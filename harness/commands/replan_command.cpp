// devplan replan IN.pte -o OUT.pte [--algorithm naive|greedy|greedy_breadth|search|best] [--json]
#include <cstdio>

#include <harness/cli/args.h>
#include <harness/commands/command.h>
#include <harness/commands/planner_command_args.h>
#include <harness/commands/replan.h>
#include <harness/report/json_writer.h>

namespace devplan::harness {
namespace {

constexpr const char* kUsage =
    "usage: devplan replan IN.pte -o OUT.pte [--algorithm naive|greedy|greedy_breadth|search|best]\n"
    "                      [--json]\n"
    "  re-plans every planned buffer (views, mutable buffers and input/output lifetimes kept);\n"
    "  a buffer whose new plan would not be smaller keeps its layout";

// Percent of the old size saved.
double saving(const ReplanBuffer& b) {
  if (b.old_size == 0) return 0.0;
  return 100.0 * static_cast<double>(b.old_size - b.new_size) / static_cast<double>(b.old_size);
}


}  // namespace

int replan_command(const Args& args, std::ostream& out, std::ostream& err) {
  const std::optional<PlannerCommandArgs> parsed =
      parse_planner_command(args, "replan", "IN.pte", kUsage, err);
  if (!parsed) return cli::kExitUsage;
  const std::string& file = parsed->input;
  const std::string& output = parsed->output;
  const bool json = parsed->json;
  auto fail = [&](const Error& e) { return fail_planner_command(e, "replan", json, out, err); };
  Result<std::vector<uint8_t>> bytes = read_file(file);
  if (!bytes.ok()) return fail(bytes.error());
  Result<ReplanResult> result = replan_program(*bytes, parsed->algorithm);
  if (!result.ok()) return fail(result.error().with_context(file));
  Error e = write_file(output, std::string(result->bytes.begin(), result->bytes.end()));
  if (!e.ok()) return fail(e);

  if (json) {
    JsonWriter w;
    w.begin_object();
    w.key("input").value(file).key("output").value(output);
    w.key("algorithm").value(planner_algorithm_name(parsed->algorithm));
    w.key("methods").begin_array();
    for (const ReplanMethod& m : result->methods) {
      w.begin_object();
      w.key("name").value(m.name);
      w.key("buffers").begin_array();
      for (const ReplanBuffer& b : m.buffers) {
        w.begin_object();
        w.key("index").value(static_cast<uint64_t>(b.index));
        w.key("device").value(b.device.to_string());
        w.key("old_size").value(b.old_size);
        w.key("new_size").value(b.new_size);
        w.key("lower_bound").value(b.lower_bound);
        w.key("saving_percent").value(saving(b));
        w.key("kept").value(b.kept);
        w.end_object();
      }
      w.end_array();
      w.end_object();
    }
    w.end_array().end_object();
    out << w.str() << "\n";
    return cli::kExitOk;
  }
  for (const ReplanMethod& m : result->methods) {
    out << "method " << m.name << ":\n";
    for (const ReplanBuffer& b : m.buffers) {
      char line[256];
      std::snprintf(line, sizeof(line),
                    "  buffer %zu on %s: %llu B -> %llu B (lower bound %llu B, %.4f of it), "
                    "saving %.1f%%%s",
                    b.index, b.device.to_string().c_str(), static_cast<unsigned long long>(b.old_size),
                    static_cast<unsigned long long>(b.new_size),
                    static_cast<unsigned long long>(b.lower_bound), size_over_lower_bound(b.new_size, b.lower_bound), saving(b),
                    b.kept ? " (kept: ours would not be smaller)" : "");
      out << line << "\n";
    }
  }
  out << "wrote " << output << "\n";
  return cli::kExitOk;
}

}  // namespace devplan::harness
