// devplan check FILE.pte [--json]
#include <harness/cli/byte_size.h>
#include <harness/commands/command.h>
#include <harness/commands/command_options.h>
#include <harness/report/json_reports.h>
#include <runtime_ext/analysis/plan_check.h>
#include <runtime_ext/program/program.h>

#include <cstdio>

namespace devplan::harness {
namespace {

std::string ratio_text(uint64_t size, uint64_t lower_bound) {
  if (lower_bound == 0) return size == 0 ? "1.000" : "n/a";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3f",
                static_cast<double>(size) / static_cast<double>(lower_bound));
  return buf;
}

void print_text(std::ostream& out, const std::string& file,
                const std::vector<MethodCheck>& checks) {
  out << "file: " << file << "\n";
  size_t overlaps = 0, violations = 0;
  for (const MethodCheck& m : checks) {
    out << "method " << m.name << ": " << m.num_steps << " steps\n";
    for (const BufferCheck& b : m.buffers) {
      out << "  buffer " << b.index << ": " << cli::format_bytes(b.size) << " on "
          << b.device.to_string() << ", lower bound " << cli::format_bytes(b.lower_bound)
          << " (size/bound " << ratio_text(b.size, b.lower_bound) << "), " << b.planned_tensors
          << " planned tensors\n";
    }
    for (const std::string& warning : m.warnings) out << "  warning: " << warning << "\n";
    for (const Overlap& o : m.overlaps) out << "  OVERLAP " << describe_overlap(o) << "\n";
    for (const DeviceViolation& d : m.device_violations) out << "  DEVICE " << d.message << "\n";
    overlaps += m.overlaps.size();
    violations += m.device_violations.size();
  }
  std::string verdict;
  if (overlaps > 0) verdict = std::to_string(overlaps) + " overlaps";
  if (violations > 0) {
    verdict += (verdict.empty() ? "" : ", ") + std::to_string(violations) + " device violations";
  }
  out << "result: " << (verdict.empty() ? "clean" : verdict) << "\n";
}

}  // namespace

Result<std::vector<MethodCheck>> check_program_file(const std::string& file) {
  DEVPLAN_ASSIGN_OR_RETURN(Program program, load_program_file(file));
  std::vector<MethodCheck> checks;
  for (size_t i = 0; i < program.num_methods(); ++i) {
    DEVPLAN_ASSIGN_OR_RETURN(const MethodPlan* plan, program.method_plan_at(i));
    checks.push_back(check_method_plan(*plan));
  }
  return checks;
}

int check_command(const Args& args, std::ostream& out, std::ostream& err) {
  std::string file;
  bool json = false;
  std::unique_ptr<CLI::App> app =
      cli::make_command_app("check",
                            "Find planned tensors that share bytes while both are live, and "
                            "tensors whose device does not match their buffer's.");
  add_program_argument(*app, file);
  add_json_flag(*app, json);
  if (std::optional<int> done = cli::parse_command_line(*app, args, out, err)) return *done;
  Result<std::vector<MethodCheck>> checks = check_program_file(file);
  if (!checks.ok()) {
    const Error error = checks.error().with_context(file);
    if (json) {
      out << error_json(error) << "\n";
    } else {
      err << "devplan check: " << error.to_string() << "\n";
    }
    return cli::kExitError;
  }
  size_t findings = 0;
  for (const MethodCheck& m : *checks) findings += m.overlaps.size() + m.device_violations.size();
  if (json) {
    out << check_json(file, *checks) << "\n";
  } else {
    print_text(out, file, *checks);
  }
  return findings == 0 ? cli::kExitOk : cli::kExitFinding;
}

}  // namespace devplan::harness
