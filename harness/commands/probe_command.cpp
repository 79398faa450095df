// devplan probe FILE [--method NAME]... [--input VALUES]... [--data FILE.ptd]...
//                    [--runtime devplan|executorch] [--device simulated|cuda]
//                    [--inject-bug BUG] [--json] [--junit OUT.xml]
// Execution evidence for every memory claim (harness/services/probe.h).
#include <chrono>
#include <iostream>
#include <sstream>

#include <harness/commands/probe_command.h>
#include <harness/options/command_options.h>
#include <harness/output/json_document.h>
#include <harness/output/json_reports.h>
#include <harness/output/junit.h>
#include <harness/output/output_file.h>
#include <harness/output/probe_report.h>
#include <harness/services/isolated_command.h>
#include <harness/services/probe.h>

namespace devplan::harness {
namespace {

struct ProbeCommandLine {
  std::string file;
  ProbeOptions options;
  std::string bug;  // --inject-bug
  bool json = false;
  std::string junit;
};

std::unique_ptr<CLI::App> probe_app(ProbeCommandLine& c) {
  auto app = cli::make_command_app(
      "probe",
      "Execute each method over poisoned planned memory and under a plan with no reuse; report "
      "outputs never written, outputs that depend on unwritten memory, and plans that let a "
      "live tensor be overwritten.");
  add_program_argument(*app, c.file);
  cli::add_repeated_option(*app, "--method", c.options.methods,
                           "a method to probe (repeatable; default: every method)")
      ->type_name("NAME");
  cli::add_repeated_option(*app, "--input", c.options.inputs,
                           "one per method input, as for `devplan run`; inputs not given are ones")
      ->type_name("VALUES");
  add_data_option(*app, c.options.data);
  app->add_option("--inject-bug", c.bug,
                  "plant a bug to see probe find it: unwritten-output, merged-outputs, "
                  "read-before-write (the device backends' compute, both engines) or "
                  "short-lifetime (one tensor's lifetime one instruction too short in the plan)")
      ->type_name("BUG")
      ->check(CLI::IsMember(
          {"unwritten-output", "merged-outputs", "read-before-write", "short-lifetime"}));
  add_device_options(*app, c.options.device);
  add_runtime_option(*app, c.options.runtime);
  add_json_flag(*app, c.json);
  app->add_option("--junit", c.junit, "write JUnit XML (one case per method)")
      ->type_name("OUT.xml");
  return app;
}

std::vector<JunitCase> junit_cases(const ProbeReport& r) {
  std::vector<JunitCase> cases;
  for (const MethodProbe& m : r.methods) {
    JunitCase c{"probe", m.name, "", 0};
    for (const ProbeFinding& f : m.findings) c.failure += f.line() + "\n";
    if (m.error) c.failure += "ERROR " + m.not_probed + "\n";
    cases.push_back(std::move(c));
  }
  if (!r.leak_lines.empty() || !r.misuse_lines.empty()) {
    JunitCase c{"probe", "leaks and misuse", "", 0};
    for (const std::string& l : r.leak_lines) c.failure += "LEAK " + l + "\n";
    for (const std::string& l : r.misuse_lines) c.failure += "MISUSE " + l + "\n";
    cases.push_back(std::move(c));
  }
  return cases;
}

int probe_parsed(ProbeCommandLine& c, const CLI::App& app, std::ostream& out, std::ostream& err) {
  const auto started = std::chrono::steady_clock::now();
  if (c.bug == "short-lifetime") {
    c.options.short_lifetime = true;
  } else if (!c.bug.empty()) {
    Result<ComputeBug> bug = parse_compute_bug(c.bug);
    if (!bug.ok()) return cli::usage_error(app, bug.error().message(), err);
    c.options.compute_bug = *bug;
  }
  if (Error e = check_devices(c.options.device); !e.ok()) {
    err << "devplan probe: " << e.to_string() << "\n";
    return cli::kExitError;
  }
  bool usage_error = false;
  Result<ProbeReport> report = Error(ErrorCode::NotFound, "");
  Result<ProgramImage> image = ProgramImage::map(c.file);
  report = image.ok() ? probe_program(*image, c.options, &usage_error)
                      : Result<ProbeReport>(image.error());
  if (!report.ok()) {
    if (usage_error) return cli::usage_error(app, report.error().message(), err);
    const Error e = report.error().with_context(c.file);
    if (c.json) {
      out << error_json(e) << "\n";
    } else {
      err << "devplan probe: " << e.to_string() << "\n";
    }
    return cli::kExitError;
  }
  if (c.json) {
    out << write_json(probe_json(c.file, *report)) << "\n";
  } else {
    write_probe_text(c.file, *report, out);
  }
  int code = report->finding_count() > 0 ? cli::kExitFinding
             : report->has_errors()      ? cli::kExitError
                                         : cli::kExitOk;
  if (!c.junit.empty()) {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (!write_output("probe", c.junit, junit_xml("devplan probe", junit_cases(*report), seconds),
                      err)) {
      code = exit_after_write_failure(code);
    }
  }
  return code;
}

}  // namespace

int probe_command(const Args& args, std::ostream& out, std::ostream& err) {
  ProbeCommandLine c;
  std::unique_ptr<CLI::App> app = probe_app(c);
  if (std::optional<int> done = cli::parse_command_line(*app, args, out, err)) return *done;
  if (c.options.runtime != RuntimeKind::Executorch) return probe_parsed(c, *app, out, err);
  return run_in_child_command(
      "probe", "probing", c.file,
      [&](std::ostream& o) { return probe_parsed(c, *app, o, std::cerr); }, out, err);
}

}  // namespace devplan::harness
