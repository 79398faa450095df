// devplan diff OLD.pte NEW.pte [--json] [--junit OUT.xml] [--runtime devplan|executorch]
//              [--fail-on-growth PCT] [--budget-steps N]
#include <harness/commands/diff_command.h>
#include <harness/options/command_options.h>
#include <harness/options/planner_command_args.h>
#include <harness/output/diff_report.h>
#include <harness/output/junit.h>
#include <harness/output/output_file.h>

#include <chrono>
#include <filesystem>

namespace devplan::harness {
namespace {

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return a == b || std::filesystem::equivalent(a, b, ec);
}

// One case per method of either file; a method fails with its peak-bytes growth.
std::vector<JunitCase> junit_cases(const ProgramDiff& diff) {
  std::vector<JunitCase> cases;
  for (const MethodDiff& m : diff.methods) {
    std::string failure;
    for (const Growth& g : diff.growth) {
      if (g.method == m.name) failure += g.text + "\n";
    }
    cases.push_back({diff.new_file, "method " + m.name + " (" + method_status_name(m.status) + ")",
                     failure, 0});
  }
  return cases;
}

}  // namespace

int diff_command(const Args& args, std::ostream& out, std::ostream& err) {
  std::string old_file, new_file, junit;
  bool json = false;
  RuntimeKind runtime = RuntimeKind::Devplan;
  DiffOptions options;
  std::unique_ptr<CLI::App> app = cli::make_command_app(
      "diff",
      "Compare two versions of a program, method by method: planned buffers (size, device, "
      "planned tensors, lower bound, proven optimum), peak device bytes, inserted copies, "
      "tensor devices, inputs and outputs; with --runtime also what a load allocates.");
  app->add_option("OLD", old_file, "the program before (.pte)")->required();
  app->add_option("NEW", new_file, "the program after (.pte)")->required();
  app->footer(
      "exit codes: 0 ok, 1 a program that does not load, 2 usage error, 3 peak device "
      "bytes grew beyond --fail-on-growth");
  add_json_flag(*app, json);
  app->add_option("--junit", junit, "write JUnit XML (one case per method)")->type_name("OUT.xml");
  CLI::Option* runtime_option = add_runtime_option(*app, runtime);
  runtime_option->description(
      "also load every method of both files under this engine and compare the device "
      "allocations (count and bytes per device), leaks and misuse: devplan or executorch");
  add_data_option(*app, options.data_paths)
      ->description(
          "a data file (.ptd) holding external tensors of both programs, for --runtime's "
          "loads; repeat for several");
  add_device_options(*app, options.device);
  add_percent_option(*app, "--fail-on-growth", options.fail_on_growth_pct,
                     "exit 3 when a method's peak device bytes on a device grow by more than "
                     "PCT percent (0: any growth)");
  add_budget_steps_option(*app, &options.budget_steps,
                          "the exact search's budget per buffer for the optimum, in search nodes "
                          "(deterministic; default 1000000; 0 skips the optimum)");
  if (std::optional<int> done = cli::parse_command_line(*app, args, out, err)) return *done;
  if (same_file(old_file, new_file)) {
    return cli::usage_error(*app, "OLD and NEW are the same file ('" + new_file + "')", err);
  }
  if (runtime_option->count() > 0) options.runtime = runtime;
  if (options.device.kind == DeviceKind::Cuda && !options.runtime) {
    return cli::usage_error(*app, "--device cuda needs --runtime (without it diff loads nothing)",
                            err);
  }

  const auto start = std::chrono::steady_clock::now();
  const Error ready = check_devices(options.device);
  Result<ProgramDiff> diff =
      ready.ok() ? diff_programs(old_file, new_file, options) : Result<ProgramDiff>(ready);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  int code = cli::kExitOk;
  if (!diff.ok()) {
    code = fail_command(diff.error(), "diff", json, out, err);
  } else {
    if (json) {
      out << write_json(diff_json(*diff)) << "\n";
    } else {
      out << diff_text(*diff);
    }
    code = diff->growth.empty() ? cli::kExitOk : cli::kExitFinding;
  }
  if (!junit.empty()) {
    const std::vector<JunitCase> cases =
        diff.ok()
            ? junit_cases(*diff)
            : std::vector<JunitCase>{{new_file, "load programs", diff.error().to_string(), 0}};
    if (!write_output("diff", junit, junit_xml("devplan diff", cases, seconds), err)) {
      return exit_after_write_failure(code);
    }
  }
  return code;
}

}  // namespace devplan::harness
