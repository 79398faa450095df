// devplan replan IN.pte -o OUT.pte [--algorithm naive|greedy|greedy_breadth|search|exact|best]
//                [--budget-steps N] [--json]
#include <cstdio>

#include <harness/commands/replan_command.h>
#include <harness/json/json.h>
#include <harness/options/byte_size.h>
#include <harness/options/planner_command_args.h>
#include <harness/output/json_document.h>
#include <harness/output/output_file.h>
#include <harness/services/replan.h>
#include <harness/values/exit_codes.h>

namespace devplan::harness {
namespace {

constexpr const char* kDescription =
    "Re-plan an existing program's buffers with devplan's planners and write it: every planned "
    "buffer is re-planned (views, mutable buffers and input/output lifetimes kept); a buffer "
    "whose new plan would not be smaller keeps its layout.";

// Percent of the old size saved.
double saving(const ReplanBuffer& b) {
  if (b.old_size == 0) return 0.0;
  return 100.0 * static_cast<double>(b.old_size - b.new_size) / static_cast<double>(b.old_size);
}

}  // namespace

int replan_command(const Args& args, std::ostream& out, std::ostream& err) {
  PlannerCommandArgs command_line;
  const PlannerCommandArgs* parsed = &command_line;
  if (std::optional<int> done =
          parse_planner_command(args, "replan", "IN.pte", kDescription, &command_line, out, err)) {
    return *done;
  }
  const std::string& file = parsed->input;
  const std::string& output = parsed->output;
  const bool json = parsed->json;
  auto fail = [&](const Error& e) { return fail_command(e, "replan", json, out, err); };
  Result<ProgramImage> image = ProgramImage::map(file);
  if (!image.ok()) return fail(image.error());
  Result<ReplanResult> result = replan_program(*image, parsed->algorithm, parsed->budget_steps);
  if (!result.ok()) return fail(result.error().with_context(file));
  Error e = write_file(output, std::string(result->bytes.begin(), result->bytes.end()));
  if (!e.ok()) return fail(e);

  if (json) {
    Json doc = json_document();
    doc["input"] = file;
    doc["output"] = output;
    doc["algorithm"] = planner_algorithm_name(parsed->algorithm);
    Json methods = Json::array();
    for (const ReplanMethod& m : result->methods) {
      Json buffers = Json::array();
      for (const ReplanBuffer& b : m.buffers) {
        buffers.push_back({{"index", b.index},
                           {"device", b.device.to_string()},
                           {"old_size", b.old_size},
                           {"new_size", b.new_size},
                           {"lower_bound", b.lower_bound},
                           {"proven_bound", b.proven_bound},
                           {"optimal", b.new_size == b.proven_bound},
                           {"saving_percent", saving(b)},
                           {"kept", b.kept}});
      }
      methods.push_back({{"name", m.name}, {"buffers", std::move(buffers)}});
    }
    doc["methods"] = std::move(methods);
    out << write_json(doc) << "\n";
    return cli::kExitOk;
  }
  for (const ReplanMethod& m : result->methods) {
    out << "method " << m.name << ":\n";
    for (const ReplanBuffer& b : m.buffers) {
      char tail[128];
      std::snprintf(tail, sizeof(tail), ", %.4f of it), saving %.1f%%%s",
                    size_over_lower_bound(b.new_size, b.lower_bound), saving(b),
                    b.kept ? " (kept: ours would not be smaller)" : "");
      out << "  buffer " << b.index << " on " << b.device.to_string() << ": "
          << cli::format_bytes(b.old_size) << " -> " << cli::format_bytes(b.new_size)
          << " (lower bound " << cli::format_bytes(b.lower_bound) << tail << ", "
          << optimality_text(b.new_size, b.proven_bound) << "\n";
    }
  }
  out << "wrote " << output << "\n";
  return cli::kExitOk;
}

}  // namespace devplan::harness
