// devplan run FILE [--method NAME] [--input VALUES]... [--max-device-allocation SIZE]
//                  [--max-host-buffer SIZE] [--rtol R] [--atol A] [--json]
// A bundled program (.bpte) without --input runs its test sets (harness/services/bundled_tests.h).
#include <harness/commands/run_command.h>
#include <harness/engine/program_image.h>
#include <harness/options/command_options.h>
#include <harness/options/memory_ceiling_options.h>
#include <harness/options/planner_command_args.h>
#include <harness/output/bundled_report_text.h>
#include <harness/output/json_reports.h>
#include <harness/output/run_output.h>
#include <harness/services/bundled_tests.h>
#include <harness/services/isolated_command.h>
#include <harness/services/run.h>

#include <iostream>

namespace devplan::harness {
namespace {

// What `devplan run` was asked to do.
struct RunCommandLine {
  std::string file;
  std::string method;
  std::vector<std::string> inputs;
  std::vector<std::string> data;  // --data FILE.ptd
  bool json = false;
  bool full = false;   // every element of every output, however many
  DeviceSetup device;  // --device, --device-map
  RuntimeKind runtime = RuntimeKind::Devplan;
  MemoryCeilings ceilings;  // device memory is host-backed: execution reads and writes it
  Tolerances tolerances;    // a bundled program's test sets
};

std::unique_ptr<CLI::App> run_app(RunCommandLine& c) {
  auto app = cli::make_command_app(
      "run",
      "Execute a method on simulated devices (or a GPU: --device cuda) and print its outputs.");
  add_program_argument(*app, c.file);
  app->add_option("--method", c.method, "the method to run (default: the first)");
  cli::add_repeated_option(*app, "--input", c.inputs,
                           "one per method input, in order: comma-separated numbers in "
                           "row-major order, or one number that fills the whole tensor; inputs "
                           "not given are ones")
      ->type_name("VALUES");
  app->add_flag("--full", c.full,
                "print every element of every output (by default a tensor of more than 4096 "
                "elements is summarized: first and last values, min, max, mean, NaN and Inf "
                "counts, a checksum of its bytes)");
  add_data_option(*app, c.data);
  add_memory_ceiling_options(*app, c.ceilings);
  app->add_option("--rtol", c.tolerances.rtol,
                  "bundled programs: the relative tolerance of floating-point outputs (default "
                  "1e-05, ExecuTorch's; the file gives none)")
      ->type_name("R")
      ->check(cli::non_negative_finite_validator());
  app->add_option("--atol", c.tolerances.atol,
                  "bundled programs: the absolute tolerance (default 1e-08, ExecuTorch's)")
      ->type_name("A")
      ->check(cli::non_negative_finite_validator());
  add_device_options(*app, c.device);
  add_runtime_option(*app, c.runtime);
  add_json_flag(*app, c.json);
  return app;
}

// `run` on a bundled program: every test case of its test sets (of --method's only, when given).
int run_test_sets(const RunCommandLine& c, const ProgramImage& image, const CLI::App& app,
                  std::ostream& out, std::ostream& err) {
  BundledTestOptions options;
  options.method = c.method;
  options.device = c.device;
  options.runtime = c.runtime;
  options.ceilings = c.ceilings;
  options.tolerances = c.tolerances;
  Result<BundledTestReport> report = run_bundled_tests(image, c.file, options);
  if (!report.ok()) return cli::usage_error(app, report.error().message(), err);
  const bool failed = report->passed() != report->cases.size();
  const bool findings = !report->leak_lines.empty() || !report->misuse_lines.empty();
  if (c.json) {
    out << bundled_tests_json(*report, c.runtime, c.tolerances) << "\n";
  } else {
    write_bundled_report_text(*report, c.tolerances, out);
  }
  return failed || findings ? cli::kExitFinding : cli::kExitOk;
}

int run_parsed(const RunCommandLine& c, const CLI::App& app, std::ostream& out, std::ostream& err) {
  const bool json = c.json;
  if (c.inputs.empty()) {
    Result<ProgramImage> image = ProgramImage::map(c.file);
    if (image.ok() && image->bundled() != nullptr) {
      return run_test_sets(c, *image, app, out, err);
    }
  }
  bool usage_error = false;
  Result<RunReport> report = run_program(c.file, c.method, c.inputs, &usage_error, c.device,
                                         c.runtime, c.ceilings, c.data);
  if (!report.ok()) {
    if (usage_error) return cli::usage_error(app, report.error().message(), err);
    return fail_command(report.error(), "run", json, out, err);
  }
  const bool findings = !report->leak_lines.empty() || !report->misuse_lines.empty();
  if (json) {
    out << run_json(*report, c.full) << "\n";
  } else {
    print_run_text(out, *report, c.full);
  }
  return findings ? cli::kExitFinding : cli::kExitOk;
}

}  // namespace

int run_command(const Args& args, std::ostream& out, std::ostream& err) {
  RunCommandLine c;
  std::unique_ptr<CLI::App> app = run_app(c);
  if (std::optional<int> done = cli::parse_command_line(*app, args, out, err)) return *done;
  if (c.runtime != RuntimeKind::Executorch) return run_parsed(c, *app, out, err);
  return run_in_child_command(
      "run", "running", c.file, [&](std::ostream& o) { return run_parsed(c, *app, o, std::cerr); },
      out, err);
}

}  // namespace devplan::harness
