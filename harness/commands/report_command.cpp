// devplan report [--out DIR] [--fuzz-cases N] [--seed S] [--runtime devplan|executorch] FILE...
// The harness's main job: inspect, check, simulate and run every program, draw its pictures,
// run a short fuzz campaign, and print one summary table.
#include <harness/cli/args.h>
#include <harness/commands/command.h>
#include <harness/commands/plan_check.h>
#include <harness/commands/program_summary.h>
#include <harness/commands/run_report.h>
#include <harness/commands/simulation.h>
#include <harness/fuzz/fuzz_campaign.h>
#include <harness/report/timeline_svg.h>

#include <cstdio>
#include <iostream>

#include <harness/engine/child_process.h>
#include <harness/engine/engine.h>
#include <map>
#include <sys/stat.h>

namespace devplan::harness {
namespace {

constexpr const char* kUsage =
    "usage: devplan report [--out DIR] [--fuzz-cases N] [--seed S] [--runtime devplan|executorch]\n"
    "                      FILE...\n"
    "  inspects, checks, simulates and runs each program, writes DIR/<program>.svg (memory\n"
    "  plan) and DIR/<program>-timeline.svg (device bytes over the allocations), runs a fuzz\n"
    "  campaign of N cases (default 2000; 0 skips it) and prints a summary table. With\n"
    "  --runtime executorch, ExecuTorch's runtime simulates and runs each program (in a child\n"
    "  process, so an abort is a finding) and the fuzz campaign is differential";

struct ProgramRow {
  std::string name;
  std::string error;  // a program that does not load
  size_t methods = 0;
  std::map<std::string, size_t> buffers_per_device;
  size_t allocations = 0;
  size_t leaks = 0;
  size_t misuse = 0;
  size_t overlaps = 0;
  size_t methods_run = 0;
  std::string run_error;
  // Methods an engine cannot run for want of a kernel or backend ("forward: no kernel for
  // aten::convolution.out"): reported, not an error.
  std::vector<std::string> not_run;
  std::vector<std::string> write_errors;  // pictures that could not be written
};

// Why a method could not run, when the engine lacks what it needs (a kernel, a delegate's
// backend), as "no kernel for aten::sin.out"; "" for any other error.
std::string missing_capability(const Error& e) {
  const std::string& m = e.message();
  const std::string kernel_end = " has no kernel";
  const size_t op = m.rfind("operator ");
  if (e.code() == ErrorCode::OperatorMissing && op != std::string::npos &&
      m.find(kernel_end, op) != std::string::npos) {
    return "no kernel for " + m.substr(op + 9, m.find(kernel_end, op) - op - 9);
  }
  const size_t backend = m.find("needs backend ");
  if (e.code() == ErrorCode::OperatorMissing && backend != std::string::npos) {
    const size_t start = backend + 14;
    return "no backend " + m.substr(start, m.find(',', start) - start);
  }
  const size_t missing = m.find("Backend ");
  if (e.code() == ErrorCode::NotFound && missing != std::string::npos &&
      m.find(" is not registered", missing) != std::string::npos) {
    const size_t start = missing + 8;
    return "no backend " + m.substr(start, m.find(' ', start) - start);
  }
  if (e.code() == ErrorCode::OperatorMissing) return "an operator has no kernel (" + m + ")";
  return "";
}

std::string base_name(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const size_t dot = name.rfind(".pte");
  return dot == std::string::npos ? name : name.substr(0, dot);
}

// One row as "key\tvalue" lines, to come back from a child process.
std::string encode_row(const ProgramRow& r) {
  std::string text = "name\t" + r.name + "\nerror\t" + r.error + "\nrun_error\t" + r.run_error + "\n";
  text += "counts\t" + std::to_string(r.methods) + " " + std::to_string(r.allocations) + " " +
          std::to_string(r.leaks) + " " + std::to_string(r.misuse) + " " +
          std::to_string(r.overlaps) + " " + std::to_string(r.methods_run) + "\n";
  for (const auto& [device, n] : r.buffers_per_device) {
    text += "buffers\t" + device + " " + std::to_string(n) + "\n";
  }
  for (const std::string& line : r.not_run) text += "not_run\t" + line + "\n";
  for (const std::string& line : r.write_errors) text += "write_error\t" + line + "\n";
  return text;
}

ProgramRow decode_row(const std::string& text) {
  ProgramRow r;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    const size_t tab = line.find('\t');
    if (tab == std::string::npos) continue;
    const std::string key = line.substr(0, tab);
    const std::string value = line.substr(tab + 1);
    if (key == "name") r.name = value;
    if (key == "error") r.error = value;
    if (key == "run_error") r.run_error = value;
    if (key == "not_run") r.not_run.push_back(value);
    if (key == "write_error") r.write_errors.push_back(value);
    if (key == "counts") {
      std::sscanf(value.c_str(), "%zu %zu %zu %zu %zu %zu", &r.methods, &r.allocations, &r.leaks,
                  &r.misuse, &r.overlaps, &r.methods_run);
    }
    if (key == "buffers") {
      const size_t space = value.rfind(' ');
      r.buffers_per_device[value.substr(0, space)] = std::stoul(value.substr(space + 1));
    }
  }
  return r;
}

ProgramRow report_program(const std::string& file, const std::string& out_dir, RuntimeKind runtime) {
  ProgramRow row;
  row.name = base_name(file);
  Result<std::vector<uint8_t>> bytes = read_file(file);
  Result<Program> program = bytes.ok() ? Program::load_from_bytes(Span<const uint8_t>(bytes->data(), bytes->size()))
                                       : Result<Program>(bytes.error());
  Result<std::vector<MethodSummary>> summary =
      program.ok() ? summarize_program(*program) : Result<std::vector<MethodSummary>>(program.error());
  if (!summary.ok()) {
    row.error = summary.error().to_string();
    return row;
  }
  row.methods = summary->size();
  for (const MethodSummary& m : *summary) {
    for (const BufferSummary& b : m.buffers) ++row.buffers_per_device[b.device.to_string()];
  }
  Result<std::vector<MethodCheck>> checks = check_program_file(file);
  if (checks.ok()) {
    for (const MethodCheck& c : *checks) row.overlaps += c.overlaps.size();
  }
  SimulationOptions simulation;
  simulation.runtime = runtime;
  Result<SimulationResult> sim = simulate_program(*bytes, simulation);
  if (sim.ok()) {
    row.allocations = sim->allocations.size();
    row.leaks = sim->leaks.size();
    row.misuse = sim->misuse.size();
    Error e = write_file(out_dir + "/" + row.name + "-timeline.svg",
                         timeline_svg(file, sim->events, sim->leaks));
    if (!e.ok()) row.write_errors.push_back(e.to_string());
  }
  for (const MethodSummary& m : *summary) {
    bool usage_error = false;
    Result<RunReport> run =
        run_program(file, m.name, {}, &usage_error, DeviceKind::Simulated, runtime);
    if (!run.ok()) {
      const std::string missing = missing_capability(run.error());
      if (!missing.empty()) {
        row.not_run.push_back(m.name + ": " + missing);
      } else if (row.run_error.empty()) {
        row.run_error = run.error().to_string();
      }
      continue;
    }
    ++row.methods_run;
    row.leaks += run->leak_lines.size();
    row.misuse += run->misuse_lines.size();
  }
  Result<std::string> svg = plot_program(file, {}, false);
  if (svg.ok()) {
    Error e = write_file(out_dir + "/" + row.name + ".svg", *svg);
    if (!e.ok()) row.write_errors.push_back(e.to_string());
  }
  return row;
}

// report_program, in a child process under ExecuTorch (which aborts on some programs): an
// abort becomes the row's error and a misuse finding.
ProgramRow report_program_isolated(const std::string& file, const std::string& out_dir,
                                   RuntimeKind runtime, std::ostream& err) {
  if (runtime != RuntimeKind::Executorch) return report_program(file, out_dir, runtime);
  ChildOutcome child = run_in_child([&](std::string* out) {
    *out = encode_row(report_program(file, out_dir, runtime));
    std::cerr.flush();
    return 0;
  });
  err << child.err;
  if (child.started && !child.signaled() && child.exit_code == 0) return decode_row(child.out);
  ProgramRow row;
  row.name = base_name(file);
  row.error = "ExecuTorch aborted: " + child.describe();
  row.misuse = 1;
  return row;
}

std::string devices_text(const std::map<std::string, size_t>& per_device) {
  std::string text;
  for (const auto& [device, n] : per_device) {
    text += (text.empty() ? "" : " ") + device + "=" + std::to_string(n);
  }
  return text.empty() ? "-" : text;
}

}  // namespace

int report_command(const Args& args, std::ostream& out, std::ostream& err) {
  const cli::ArgSpec spec = {{"out", cli::OptionKind::Single},
                             {"fuzz-cases", cli::OptionKind::Single},
                             {"seed", cli::OptionKind::Single},
                             {"runtime", cli::OptionKind::Single}};
  Result<cli::ParsedArgs> parsed = cli::parse_args(spec, args);
  if (!parsed.ok() || parsed->positionals.empty()) {
    err << "devplan report: " << (parsed.ok() ? "expected at least one FILE" : parsed.error().message())
        << "\n" << kUsage << "\n";
    return cli::kExitUsage;
  }
  CampaignOptions fuzz;
  fuzz.max_cases = 2000;
  fuzz.scenario.max_buffer_bytes = 64 * 1024;
  if (parsed->has("fuzz-cases")) {
    Result<uint64_t> n = cli::parse_uint_option("fuzz-cases", parsed->value("fuzz-cases"));
    if (!n.ok()) {
      err << "devplan report: " << n.error().message() << "\n" << kUsage << "\n";
      return cli::kExitUsage;
    }
    fuzz.max_cases = *n;
  }
  if (parsed->has("seed")) {
    Result<uint64_t> seed = cli::parse_uint_option("seed", parsed->value("seed"));
    if (!seed.ok()) {
      err << "devplan report: " << seed.error().message() << "\n" << kUsage << "\n";
      return cli::kExitUsage;
    }
    fuzz.seed = *seed;
  }
  Result<RuntimeKind> runtime = parse_runtime_kind(parsed->value("runtime", "devplan"));
  if (!runtime.ok()) {
    err << "devplan report: " << runtime.error().message() << "\n" << kUsage << "\n";
    return cli::kExitUsage;
  }
  if (*runtime == RuntimeKind::Executorch && !executorch_available()) {
    err << "devplan report: --runtime executorch: " << executorch_unavailable_reason() << "\n";
    return cli::kExitError;
  }
  fuzz.checks.differential = *runtime == RuntimeKind::Executorch;
  const std::string out_dir = parsed->value("out", "build/report");
  ::mkdir(out_dir.c_str(), 0755);

  std::vector<ProgramRow> rows;
  for (const std::string& file : parsed->positionals) {
    rows.push_back(report_program_isolated(file, out_dir, *runtime, err));
  }
  CampaignResult campaign;
  if (fuzz.max_cases > 0) campaign = run_campaign(fuzz, {});

  char line[256];
  out << "runtime: " << runtime_name(*runtime) << "\n";
  std::snprintf(line, sizeof(line), "%-28s %7s  %-26s %6s %5s %6s %8s %4s", "program", "methods",
                "buffers per device", "allocs", "leaks", "misuse", "overlaps", "run");
  out << line << "\n";
  size_t findings = 0, errors = 0, total_allocations = 0;
  for (const ProgramRow& r : rows) {
    if (!r.error.empty()) {
      out << r.name << ": " << r.error << "\n";
      ++errors;
      continue;
    }
    const std::string run = std::to_string(r.methods_run) + "/" + std::to_string(r.methods);
    std::snprintf(line, sizeof(line), "%-28s %7zu  %-26s %6zu %5zu %6zu %8zu %4s", r.name.c_str(),
                  r.methods, devices_text(r.buffers_per_device).c_str(), r.allocations, r.leaks,
                  r.misuse, r.overlaps, run.c_str());
    out << line << "\n";
    if (!r.run_error.empty()) out << "  run: " << r.run_error << "\n";
    for (const std::string& line : r.not_run) out << "  not run: " << line << "\n";
    for (const std::string& line : r.write_errors) out << "  cannot write: " << line << "\n";
    findings += r.leaks + r.misuse + r.overlaps;
    errors += (r.run_error.empty() ? 0 : 1) + r.write_errors.size();
    total_allocations += r.allocations;
  }
  out << rows.size() << " programs, " << total_allocations << " device allocations, all freed: "
      << (findings == 0 ? "yes" : "NO") << "\n";
  if (fuzz.max_cases > 0) {
    std::snprintf(line, sizeof(line), "fuzz: %llu cases in %.1f s, %d failures (seed %llu)%s",
                  static_cast<unsigned long long>(campaign.cases), campaign.seconds,
                  campaign.failure ? 1 : 0, static_cast<unsigned long long>(fuzz.seed),
                  fuzz.checks.differential ? ", differential against ExecuTorch" : "");
    out << line << "\n";
    if (campaign.failure) {
      out << "  " << campaign.failure->finding.check << ": " << campaign.failure->finding.message
          << "\n  replay: devplan fuzz --seed " << fuzz.seed << " --case "
          << campaign.failure->case_index << (fuzz.checks.differential ? " --differential" : "")
          << "\n";
      ++findings;
    }
  }
  out << "pictures: " << out_dir << "/<program>.svg and " << out_dir << "/<program>-timeline.svg\n";
  out << "result: " << (findings > 0 ? "FINDINGS" : errors > 0 ? "ERRORS" : "ok") << "\n";
  return findings > 0 ? cli::kExitFinding : errors > 0 ? cli::kExitError : cli::kExitOk;
}

}  // namespace devplan::harness
