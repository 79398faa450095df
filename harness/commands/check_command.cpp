// devplan check FILE.pte [--data FILE.ptd]... [--budget-steps N] [--probe [--runtime R]] [--json]
#include <harness/commands/check_command.h>
#include <harness/options/command_options.h>
#include <harness/options/planner_command_args.h>
#include <harness/output/check_output.h>
#include <harness/services/check.h>
#include <harness/services/isolated_command.h>

#include <iostream>
#include <optional>

namespace devplan::harness {
namespace {

int check_parsed(const std::string& file, const std::vector<std::string>& data_paths, bool json,
                 int64_t budget_steps, bool probe, RuntimeKind runtime, std::ostream& out,
                 std::ostream& err);

}  // namespace

int check_command(const Args& args, std::ostream& out, std::ostream& err) {
  std::string file;
  std::vector<std::string> data_paths;
  bool json = false;
  bool probe = false;
  RuntimeKind runtime = RuntimeKind::Devplan;
  int64_t budget_steps = -1;
  std::unique_ptr<CLI::App> app =
      cli::make_command_app("check",
                            "Find planned tensors that share bytes while both are live, and "
                            "tensors whose device does not match their buffer's.");
  add_program_argument(*app, file);
  add_data_option(*app, data_paths);
  add_json_flag(*app, json);
  add_budget_steps_option(*app, &budget_steps,
                          "the exact search's budget per buffer for the optimum, in search nodes "
                          "(deterministic; default 1000000)");
  CLI::Option* probe_flag = app->add_flag(
      "--probe", probe,
      "execute each overlap on its own (one tensor moved to bytes of its own) and say "
      "whether the outputs change: confirmed in execution, or not observed");
  add_runtime_option(*app, runtime)
      ->description("with --probe: the engine that executes (default devplan)")
      ->needs(probe_flag);
  if (std::optional<int> done = cli::parse_command_line(*app, args, out, err)) return *done;
  if (!probe || runtime != RuntimeKind::Executorch) {
    return check_parsed(file, data_paths, json, budget_steps, probe, runtime, out, err);
  }
  return run_in_child_command(
      "check", "probing", file,
      [&](std::ostream& o) {
        return check_parsed(file, data_paths, json, budget_steps, probe, runtime, o, std::cerr);
      },
      out, err);
}

namespace {

int check_parsed(const std::string& file, const std::vector<std::string>& data_paths, bool json,
                 int64_t budget_steps, bool probe, RuntimeKind runtime, std::ostream& out,
                 std::ostream& err) {
  Result<std::vector<MethodCheck>> checks = check_program_file(file);
  Result<std::vector<std::vector<BufferOptimum>>> optimums =
      checks.ok() ? buffer_optimums(file, budget_steps)
                  : Result<std::vector<std::vector<BufferOptimum>>>(checks.error());
  Result<CheckedData> data =
      optimums.ok() ? checked_data(file, data_paths) : Result<CheckedData>(optimums.error());
  if (!data.ok()) return fail_command(data.error().with_context(file), "check", json, out, err);
  size_t findings = 0;
  for (const MethodCheck& m : *checks) findings += m.overlaps.size() + m.device_violations.size();
  std::optional<ProbeReport> probed;
  if (probe) {
    Result<ProbeReport> r = probe_overlaps(file, data_paths, runtime);
    if (!r.ok()) {
      return fail_command(r.error().with_context(file + " (--probe)"), "check", json, out, err);
    }
    probed = std::move(r).value();
  }
  const CheckedData* with_data = data->files ? &*data : nullptr;
  const ProbeReport* with_probe = probed ? &*probed : nullptr;
  if (json) {
    out << check_report_json(file, *checks, *optimums, with_data, with_probe) << "\n";
  } else {
    print_check_text(out, file, *checks, *optimums, with_data, with_probe);
  }
  return findings == 0 ? cli::kExitOk : cli::kExitFinding;
}

}  // namespace

}  // namespace devplan::harness
