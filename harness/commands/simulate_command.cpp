// devplan simulate FILE [--method NAME]... [--place INDEX=DEVICE]... [--fail-alloc N]
//                       [--capacity DEVICE=SIZE]... [--inject-bug BUG] [--backing unbacked|host]
//                       [--max-device-allocation SIZE] [--max-host-buffer SIZE]
//                       [--trace OUT.json] [--json]
#include <harness/commands/simulate_command.h>
#include <harness/engine/child_process.h>
#include <harness/options/simulate_command_line.h>
#include <harness/output/chrome_trace.h>
#include <harness/output/json_reports.h>
#include <harness/output/output_file.h>
#include <harness/output/simulate_output.h>
#include <harness/output/timeline_svg.h>
#include <harness/services/simulation.h>

#include <chrono>
#include <iostream>
#include <sstream>

namespace devplan::harness {

int simulate_exit_code(const SimulationResult& result) {
  if (result.has_findings()) return cli::kExitFinding;
  return result.all_loaded() ? cli::kExitOk : cli::kExitError;
}

namespace {

int simulate_parsed(const SimulateCommandLine& c, std::ostream& out, std::ostream& err);

}  // namespace

int simulate_command(const Args& args, std::ostream& out, std::ostream& err) {
  SimulateCommandLine c;
  std::unique_ptr<CLI::App> app = simulate_app(c);
  if (std::optional<int> done = cli::parse_command_line(*app, args, out, err)) return *done;
  if (app->count("--backing") > 0 && c.options.device.kind == DeviceKind::Cuda) {
    return cli::usage_error(*app, "--backing applies to the simulated devices, not --device cuda",
                            err);
  }
  if (c.options.runtime != RuntimeKind::Executorch) return simulate_parsed(c, out, err);
  // ExecuTorch aborts on some invalid programs: run it in a child and report an abort.
  ChildOutcome child = run_in_child([&](std::string* child_out) {
    std::ostringstream o;
    const int code = simulate_parsed(c, o, std::cerr);
    std::cerr.flush();
    *child_out = o.str();
    return code;
  });
  out << child.out;
  if (!child.signaled() && child.started) {
    err << child.err;
    return child.exit_code;
  }
  const std::string what =
      "ExecuTorch aborted while simulating " + c.file + ": " + child.describe();
  if (c.json) {
    out << simulate_abort_json(what) << "\n";
  } else {
    err << child.err;
    err << "devplan simulate: FINDING: " << what << "\n";
  }
  return child.started ? cli::kExitFinding : cli::kExitError;
}

namespace {

// The text or JSON report of a simulation (or of the error that stopped it); its exit code.
int print_simulation(const SimulateCommandLine& c, const Result<SimulationResult>& result,
                     bool option_error, std::ostream& out, std::ostream& err) {
  if (!result.ok()) {
    const Error error = result.error().with_context(c.file);
    if (option_error) {  // an option that does not fit the program
      err << "devplan simulate: " << error.message() << "\n";
      return cli::kExitUsage;
    }
    if (c.json) {
      out << simulate_error_json(error, c.options.runtime) << "\n";
    } else {
      err << "devplan simulate: " << error.to_string() << "\n";
    }
    return cli::kExitError;
  }
  const int code = simulate_exit_code(*result);
  if (c.json) {
    out << simulate_json(*result, code) << "\n";
    return code;
  }
  print_simulation_text(out, c.file, *result, code);
  return code;
}

int simulate_parsed(const SimulateCommandLine& c, std::ostream& out, std::ostream& err) {
  const auto start = std::chrono::steady_clock::now();
  Result<ProgramImage> bytes = ProgramImage::map(c.file);
  bool program_error = false;
  Result<SimulationResult> result = bytes.ok() ? simulate_program(*bytes, c.options, &program_error)
                                               : Result<SimulationResult>(bytes.error());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const bool option_error =
      !result.ok() && bytes.ok() && !program_error &&
      (result.code() == ErrorCode::InvalidArgument || result.code() == ErrorCode::NotFound);
  const int code = print_simulation(c, result, option_error, out, err);
  if (code == cli::kExitUsage) return code;
  // The files come after the report, so a file that cannot be written loses nothing else.
  bool written = true;
  if (!c.junit.empty()) {
    const std::vector<JunitCase> cases =
        result.ok()
            ? simulation_junit_cases(c.file, *result)
            : std::vector<JunitCase>{{c.file, "load program", result.error().to_string(), 0}};
    written &=
        write_output("simulate", c.junit, junit_xml("devplan simulate", cases, seconds), err);
  }
  if (result.ok() && !c.timeline_svg.empty()) {
    written &= write_output("simulate", c.timeline_svg,
                            timeline_svg(c.file, result->events, result->leaks), err);
  }
  if (result.ok() && !c.trace.empty()) {
    written &= write_output("simulate", c.trace,
                            allocation_trace(c.file, result->events, result->leaks), err);
  }
  return written ? code : exit_after_write_failure(code);
}

}  // namespace

}  // namespace devplan::harness
