// devplan report [--out DIR] [--fuzz-cases N] [--seed S] [--runtime devplan|executorch]
//                [--max-device-allocation SIZE] [--max-host-buffer SIZE] [--json]
//                [--junit OUT.xml] FILE...
// The harness's main job: inspect, check, simulate and run every program, draw its pictures,
// run a short fuzz campaign, and print one summary table (or one JSON document).
#include <harness/campaign/fuzz_campaign.h>
#include <harness/commands/commands.h>
#include <harness/engine/missing_capability.h>
#include <harness/engine/run_report.h>
#include <harness/json/json.h>
#include <harness/options/command_options.h>
#include <harness/options/fuzz_command_line.h>
#include <harness/options/memory_ceiling_options.h>
#include <harness/output/json_document.h>
#include <harness/output/json_reports.h>
#include <harness/output/junit.h>
#include <harness/output/output_file.h>
#include <harness/output/plan_svg.h>
#include <harness/output/timeline_svg.h>
#include <harness/services/bundled_tests.h>
#include <harness/services/check.h>
#include <harness/services/probe.h>
#include <harness/services/program_summary.h>
#include <harness/services/run.h>
#include <harness/services/simulation.h>
#include <runtime_ext/analysis/plan_check.h>
#include <runtime_ext/core/byte_count.h>

#include <chrono>
#include <cstdio>
#include <iostream>

#include <harness/engine/child_process.h>
#include <harness/engine/data_files.h>
#include <harness/engine/engine.h>
#include <filesystem>
#include <map>
#include <system_error>

namespace devplan::harness {
namespace {

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
  // Bundled programs: their test cases run, and the failures ("forward test case 1: output 0
  // element 2: ..."); cases that need a missing kernel or backend go to not_run.
  size_t test_cases = 0;
  size_t test_cases_passed = 0;
  std::vector<std::string> test_failures;
  // devplan probe's verdict ("clean", "2 findings", "not probed", "error") and its findings'
  // lines (leaks and misuse included), or why it could not run.
  std::string probe;
  std::vector<std::string> probe_findings;
  std::vector<std::string> probe_errors;  // what probe could not execute (run says it too)
};

// Why `method` cannot be executed within `ceilings` (execution reads and writes device bytes, so
// device memory is host-backed there), as "17179869184 B (16.0 GiB) in one device buffer
// (buffer 1, cuda:0) exceeds --max-device-allocation (4294967296 B (4.0 GiB))"; "" when it can.
// Such a method is simulated unbacked and reported as not run, not as an error.
std::string exceeded_ceiling(const MethodSummary& method, const MemoryCeilings& ceilings,
                             RuntimeKind runtime) {
  const uint64_t device_limit = ceilings.device_allocation_limit(DeviceBacking::Host);
  uint64_t host_bytes = 0;
  for (const BufferSummary& b : method.buffers) {
    if (b.device.is_cpu()) {
      host_bytes += b.size;
    } else if (b.size > device_limit) {
      return format_bytes(b.size) + " in one device buffer (buffer " + std::to_string(b.index) +
             ", " + b.device.to_string() + ") exceeds --max-device-allocation (" +
             format_bytes(device_limit) + ")";
    }
  }
  // ExecuTorch's Module allocates its host buffers itself; the ceiling is runtime_ext's.
  if (runtime == RuntimeKind::Devplan && host_bytes > ceilings.max_host_buffer_bytes) {
    return format_bytes(host_bytes) + " of host planned memory exceeds --max-host-buffer (" +
           format_bytes(ceilings.max_host_buffer_bytes) + ")";
  }
  return "";
}

std::string base_name(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  for (const std::string extension : {".pte", ".bpte"}) {
    if (name.size() > extension.size() &&
        name.compare(name.size() - extension.size(), extension.size(), extension) == 0) {
      return name.substr(0, name.size() - extension.size());
    }
  }
  return name;
}

// One row as JSON: the report's --json entry, and how a row comes back from a child process.
Json row_json(const ProgramRow& r) {
  Json j;
  j["name"] = r.name;
  if (!r.error.empty()) j["error"] = r.error;
  j["methods"] = r.methods;
  Json devices = Json::object();
  for (const auto& [device, n] : r.buffers_per_device) devices[device] = n;
  j["buffers_per_device"] = std::move(devices);
  j["allocations"] = r.allocations;
  j["leaks"] = r.leaks;
  j["misuse"] = r.misuse;
  j["overlaps"] = r.overlaps;
  j["methods_run"] = r.methods_run;
  if (!r.run_error.empty()) j["run_error"] = r.run_error;
  j["not_run"] = r.not_run;
  j["write_errors"] = r.write_errors;
  j["test_cases"] = r.test_cases;
  j["test_cases_passed"] = r.test_cases_passed;
  j["test_failures"] = r.test_failures;
  j["probe"] = r.probe;
  j["probe_findings"] = r.probe_findings;
  j["probe_errors"] = r.probe_errors;
  return j;
}

ProgramRow row_from_json(const Json& j) {
  ProgramRow r;
  r.name = j.value("name", "");
  r.error = j.value("error", "");
  r.methods = j.value("methods", size_t{0});
  for (const auto& [device, n] : j.at("buffers_per_device").items()) {
    r.buffers_per_device[device] = n.get<size_t>();
  }
  r.allocations = j.value("allocations", size_t{0});
  r.leaks = j.value("leaks", size_t{0});
  r.misuse = j.value("misuse", size_t{0});
  r.overlaps = j.value("overlaps", size_t{0});
  r.methods_run = j.value("methods_run", size_t{0});
  r.run_error = j.value("run_error", "");
  r.not_run = j.at("not_run").get<std::vector<std::string>>();
  r.write_errors = j.at("write_errors").get<std::vector<std::string>>();
  r.test_cases = j.value("test_cases", size_t{0});
  r.test_cases_passed = j.value("test_cases_passed", size_t{0});
  r.test_failures = j.at("test_failures").get<std::vector<std::string>>();
  r.probe = j.value("probe", "");
  r.probe_findings = j.at("probe_findings").get<std::vector<std::string>>();
  r.probe_errors = j.at("probe_errors").get<std::vector<std::string>>();
  return r;
}

// A bundled program's test sets, run into `row`.
void report_test_sets(const std::string& file, const BundledProgram& bundle, RuntimeKind runtime,
                      const DeviceSetup& device, const MemoryCeilings& ceilings, ProgramRow& row) {
  BundledTestOptions options;
  options.runtime = runtime;
  options.device = device;
  options.ceilings = ceilings;
  Result<BundledTestReport> tests = run_bundled_tests(file, bundle, options);
  if (!tests.ok()) {
    row.test_failures.push_back(tests.error().to_string());
    return;
  }
  row.test_cases = tests->cases.size();
  row.test_cases_passed = tests->passed();
  row.leaks += tests->leak_lines.size();
  row.misuse += tests->misuse_lines.size();
  for (const TestCaseOutcome& t : tests->cases) {
    if (t.passed) continue;
    const std::string name = t.method + " test case " + std::to_string(t.index);
    const std::string missing = t.error.ok() ? "" : missing_capability(t.error);
    if (!missing.empty()) {
      row.not_run.push_back(name + ": " + missing);
    } else {
      row.test_failures.push_back(name + ": " + t.message);
    }
  }
}

// devplan probe on the program, into `row`'s probe column.
void report_probe(const ProgramImage& image, RuntimeKind runtime, const DeviceSetup& device,
                  const MemoryCeilings& ceilings, const std::vector<std::string>& data,
                  ProgramRow& row) {
  ProbeOptions options;
  options.runtime = runtime;
  options.device = device;
  options.data = data;
  options.max_host_bytes = ceilings.max_host_buffer_bytes;
  bool usage_error = false;
  Result<ProbeReport> probe = probe_program(image, options, &usage_error);
  if (!probe.ok()) {
    row.probe = "error";
    row.probe_errors.push_back(probe.error().to_string());
    return;
  }
  row.probe = probe->verdict();
  for (const MethodProbe& m : probe->methods) {
    for (const ProbeFinding& f : m.findings) row.probe_findings.push_back(f.line());
    if (m.error) row.probe_errors.push_back("method " + m.name + ": " + m.not_probed);
  }
  for (const std::string& l : probe->leak_lines) row.probe_findings.push_back("LEAK " + l);
  for (const std::string& l : probe->misuse_lines) row.probe_findings.push_back("MISUSE " + l);
}

ProgramRow report_program(const std::string& file, const std::string& out_dir, RuntimeKind runtime,
                          const DeviceSetup& device, const MemoryCeilings& ceilings,
                          const std::vector<std::string>& data) {
  ProgramRow row;
  row.name = base_name(file);
  Result<ProgramImage> image = ProgramImage::map(file);
  Result<Program> program = image.ok() ? image->program() : Result<Program>(image.error());
  Result<std::vector<MethodSummary>> summary =
      program.ok() ? summarize_program(*program)
                   : Result<std::vector<MethodSummary>>(program.error());
  if (!summary.ok()) {
    row.error = summary.error().with_context(file).to_string();
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
  simulation.device = device;
  simulation.ceilings = ceilings;
  simulation.data_paths = data;
  Result<SimulationResult> sim = simulate_program(*image, simulation);
  if (sim.ok()) {
    row.allocations = sim->allocations.size();
    row.leaks = sim->leaks.size();
    row.misuse = sim->misuse.size();
    Error e = write_file(out_dir + "/" + row.name + "-timeline.svg",
                         timeline_svg(file, sim->events, sim->leaks));
    if (!e.ok()) row.write_errors.push_back(e.to_string());
  }
  for (const MethodSummary& m : *summary) {
    const std::string too_large = exceeded_ceiling(m, ceilings, runtime);
    if (!too_large.empty()) {
      row.not_run.push_back(m.name + ": " + too_large);
      continue;
    }
    bool usage_error = false;
    Result<RunReport> run =
        run_program(file, m.name, {}, &usage_error, device, runtime, ceilings, data);
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
  if (image->bundled() != nullptr)
    report_test_sets(file, *image->bundled(), runtime, device, ceilings, row);
  report_probe(*image, runtime, device, ceilings, data, row);
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
                                   RuntimeKind runtime, const DeviceSetup& device,
                                   const MemoryCeilings& ceilings,
                                   const std::vector<std::string>& data, std::ostream& err) {
  if (runtime != RuntimeKind::Executorch) {
    return report_program(file, out_dir, runtime, device, ceilings, data);
  }
  ChildOutcome child = run_in_child([&](std::string* out) {
    *out = write_json(row_json(report_program(file, out_dir, runtime, device, ceilings, data)));
    std::cerr.flush();
    return 0;
  });
  err << child.err;
  if (child.started && !child.signaled() && child.exit_code == 0) {
    Result<Json> row = parse_json(child.out);
    try {
      if (row.ok()) return row_from_json(*row);
    } catch (const Json::exception&) {  // a child that printed something else: an error below
    }
  }
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

// What `devplan report` was asked to do.
struct ReportCommandLine {
  std::vector<std::string> files;
  std::string out_dir = "build/report";
  CampaignOptions fuzz;
  RuntimeKind runtime = RuntimeKind::Devplan;
  DeviceSetup device;             // --device, --device-map
  MemoryCeilings ceilings;        // for the run step (host-backed); simulation is unbacked
  std::vector<std::string> data;  // --data: data files (.ptd) of the programs
  bool json = false;
  std::string junit;
};

std::unique_ptr<CLI::App> report_app(ReportCommandLine& c) {
  auto app = cli::make_command_app(
      "report",
      "The main job: inspect, check, simulate and run each program, write DIR/<program>.svg "
      "(memory plan) and DIR/<program>-timeline.svg (device bytes over the allocations), run a "
      "fuzz campaign and print a summary table. With --runtime executorch, ExecuTorch's runtime "
      "simulates and runs each program (in a child process, so an abort is a finding) and the "
      "fuzz campaign is differential.");
  c.fuzz.max_cases = 2000;
  c.fuzz.scenario = command_line_scenario();  // what `devplan fuzz` replays
  app->add_option("FILE", c.files, "the programs (.pte)")->required();
  app->add_option("--out", c.out_dir, "where the pictures go (created; default build/report)")
      ->type_name("DIR");
  app->add_option("--fuzz-cases", c.fuzz.max_cases, "fuzz cases to run (default 2000; 0 skips)")
      ->type_name("N")
      ->transform(cli::decimal_validator());
  app->add_option("--seed", c.fuzz.seed, "the fuzz campaign's seed")
      ->type_name("S")
      ->transform(cli::decimal_validator());
  add_runtime_option(*app, c.runtime);
  add_device_options(*app, c.device);
  add_data_option(*app, c.data);
  add_memory_ceiling_options(*app, c.ceilings);
  add_json_flag(*app, c.json);
  app->add_option("--junit", c.junit, "also write JUnit XML: one case per program, one for fuzz")
      ->type_name("OUT.xml");
  return app;
}

// Everything a report says, computed once and then printed as text, JSON or JUnit.
struct ReportOutcome {
  std::vector<ProgramRow> rows;
  std::shared_ptr<const DataFiles> data_files;  // --data, read once to be counted
  CampaignResult campaign;
  size_t findings = 0;          // program findings plus a failed fuzz case
  size_t program_findings = 0;  // leaks, misuse and overlaps in the programs
  size_t errors = 0;
  size_t total_allocations = 0;
  double seconds = 0;
  const char* result() const { return findings > 0 ? "FINDINGS" : errors > 0 ? "ERRORS" : "ok"; }
  int exit_code() const {
    return findings > 0 ? cli::kExitFinding : errors > 0 ? cli::kExitError : cli::kExitOk;
  }
};

// Why a row is a failure, one line each; empty for a clean row.
std::string row_failure(const ProgramRow& r) {
  std::string text;
  auto add = [&text](const std::string& line) { text += line + "\n"; };
  if (!r.error.empty()) add(r.error);
  if (r.leaks > 0) add(std::to_string(r.leaks) + " leaks");
  if (r.misuse > 0) add(std::to_string(r.misuse) + " misuse");
  if (r.overlaps > 0) add(std::to_string(r.overlaps) + " overlaps");
  if (!r.run_error.empty()) add("run: " + r.run_error);
  for (const std::string& line : r.test_failures) add("test failed: " + line);
  for (const std::string& line : r.probe_findings) add("probe: " + line);
  for (const std::string& line : r.write_errors) add("cannot write: " + line);
  return text;
}

void print_text(std::ostream& out, const ReportCommandLine& c, const ReportOutcome& o) {
  char line[256];
  out << "runtime: " << runtime_name(c.runtime) << "\n";
  out << "devices: " << c.device.describe() << "\n";
  std::snprintf(line, sizeof(line), "%-28s %7s  %-26s %6s %5s %6s %8s %4s  %s", "program",
                "methods", "buffers per device", "allocs", "leaks", "misuse", "overlaps", "run",
                "probe");
  out << line << "\n";
  for (const ProgramRow& r : o.rows) {
    if (!r.error.empty()) {
      out << r.name << ": " << r.error << "\n";
      continue;
    }
    const std::string run = std::to_string(r.methods_run) + "/" + std::to_string(r.methods);
    std::snprintf(line, sizeof(line), "%-28s %7zu  %-26s %6zu %5zu %6zu %8zu %4s  %s",
                  r.name.c_str(), r.methods, devices_text(r.buffers_per_device).c_str(),
                  r.allocations, r.leaks, r.misuse, r.overlaps, run.c_str(), r.probe.c_str());
    out << line << "\n";
    if (!r.run_error.empty()) out << "  run: " << r.run_error << "\n";
    if (r.test_cases > 0) {
      out << "  test cases: " << r.test_cases_passed << "/" << r.test_cases << " passed\n";
    }
    for (const std::string& text : r.test_failures) out << "  test FAILED: " << text << "\n";
    for (const std::string& text : r.not_run) out << "  not run: " << text << "\n";
    for (const std::string& text : r.probe_findings) out << "  probe: " << text << "\n";
    for (const std::string& text : r.probe_errors) out << "  probe error: " << text << "\n";
    for (const std::string& text : r.write_errors) out << "  cannot write: " << text << "\n";
  }
  if (o.data_files != nullptr) {
    for (const DataFiles::Owned& f : o.data_files->files()) {
      out << "data file: " << data_file_summary(f.file) << "\n";
    }
  }
  out << o.rows.size() << " programs, " << o.total_allocations
      << " device allocations, all freed: " << (o.program_findings == 0 ? "yes" : "NO") << "\n";
  if (c.fuzz.max_cases > 0) {
    std::snprintf(line, sizeof(line), "fuzz: %llu cases in %.1f s, %d failures (seed %llu)%s",
                  static_cast<unsigned long long>(o.campaign.cases), o.campaign.seconds,
                  o.campaign.failure ? 1 : 0, static_cast<unsigned long long>(c.fuzz.seed),
                  c.fuzz.checks.differential ? ", differential against ExecuTorch" : "");
    out << line << "\n";
    if (o.campaign.failure) {
      out << "  " << o.campaign.failure->finding.check << ": "
          << o.campaign.failure->finding.message
          << "\n  replay: " << replay_command(c.fuzz, o.campaign.failure->case_index) << "\n";
    }
  }
  out << "pictures: " << c.out_dir << "/<program>.svg and " << c.out_dir
      << "/<program>-timeline.svg\n";
  out << "result: " << o.result() << "\n";
}

std::string report_json(const ReportCommandLine& c, const ReportOutcome& o) {
  Json doc = json_document();
  doc["runtime"] = runtime_name(c.runtime);
  doc["device"] = c.device.kind == DeviceKind::Simulated ? "simulated" : "cuda";
  if (!c.device.map.empty()) doc["device_map"] = c.device.map.describe();
  doc["result"] = o.result();
  Json programs = Json::array();
  for (const ProgramRow& r : o.rows) programs.push_back(row_json(r));
  doc["programs"] = std::move(programs);
  if (o.data_files != nullptr) doc["data_files"] = data_files_json(*o.data_files);
  doc["device_allocations"] = o.total_allocations;
  doc["all_freed"] = o.program_findings == 0;
  if (c.fuzz.max_cases > 0) {
    Json fuzz;
    fuzz["cases"] = o.campaign.cases;
    fuzz["seconds"] = o.campaign.seconds;
    fuzz["seed"] = c.fuzz.seed;
    fuzz["differential"] = c.fuzz.checks.differential;
    fuzz["failures"] = o.campaign.failure ? 1 : 0;
    if (o.campaign.failure) {
      fuzz["failure"] = {{"check", o.campaign.failure->finding.check},
                         {"message", o.campaign.failure->finding.message},
                         {"case", o.campaign.failure->case_index},
                         {"replay", replay_command(c.fuzz, o.campaign.failure->case_index)}};
    }
    doc["fuzz"] = std::move(fuzz);
  } else {
    doc["fuzz"] = nullptr;
  }
  doc["pictures"] = c.out_dir;
  return write_json(doc);
}

std::string report_junit(const ReportCommandLine& c, const ReportOutcome& o) {
  std::vector<JunitCase> cases;
  for (const ProgramRow& r : o.rows) cases.push_back({"devplan report", r.name, row_failure(r), 0});
  if (c.fuzz.max_cases > 0) {
    std::string failure;
    if (o.campaign.failure) {
      failure = o.campaign.failure->finding.check + ": " + o.campaign.failure->finding.message +
                "\nreplay: " + replay_command(c.fuzz, o.campaign.failure->case_index);
    }
    cases.push_back({"devplan report", "fuzz campaign", failure, o.campaign.seconds});
  }
  return junit_xml("devplan report", cases, o.seconds);
}

}  // namespace

int report_command(const Args& args, std::ostream& out, std::ostream& err) {
  ReportCommandLine c;
  std::unique_ptr<CLI::App> app = report_app(c);
  if (std::optional<int> done = cli::parse_command_line(*app, args, out, err)) return *done;
  if (c.runtime == RuntimeKind::Executorch && !executorch_available()) {
    err << "devplan report: --runtime executorch: " << executorch_unavailable_reason() << "\n";
    return cli::kExitError;
  }
  c.fuzz.checks.differential = c.runtime == RuntimeKind::Executorch;
  if (Error ready = check_devices(c.device); !ready.ok()) {
    err << "devplan report: " << ready.message() << "\n";
    return cli::kExitError;
  }
  std::error_code ec;
  std::filesystem::create_directories(c.out_dir, ec);
  if (ec || !std::filesystem::is_directory(c.out_dir)) {
    err << "devplan report: cannot create '" << c.out_dir
        << "': " << (ec ? ec.message() : "it exists and is not a directory") << "\n";
    return cli::kExitError;
  }
  const auto start = std::chrono::steady_clock::now();
  ReportOutcome o;
  Result<std::shared_ptr<const DataFiles>> data = map_data_files(c.data);
  if (!data.ok()) {
    err << "devplan report: --data: " << data.error().to_string() << "\n";
    return cli::kExitError;
  }
  o.data_files = *data;
  for (const std::string& file : c.files) {
    o.rows.push_back(
        report_program_isolated(file, c.out_dir, c.runtime, c.device, c.ceilings, c.data, err));
  }
  // The campaign runs here, after every program's child: CUDA is first used in this process now.
  std::unique_ptr<RealDeviceMemory> fuzz_memory;
  if (c.fuzz.max_cases > 0 && c.device.kind == DeviceKind::Cuda) {
    Result<std::unique_ptr<RealDeviceMemory>> opened =
        RealDeviceMemory::open(c.device, /*wrap_absent=*/true);
    if (opened.ok()) {
      fuzz_memory = std::move(opened).value();
      c.fuzz.checks.device_memory = fuzz_memory->allocator();
    }
  }
  if (c.fuzz.max_cases > 0) o.campaign = run_campaign(c.fuzz, {});
  for (const ProgramRow& r : o.rows) {
    if (!r.error.empty()) {
      ++o.errors;
      continue;
    }
    o.program_findings +=
        r.leaks + r.misuse + r.overlaps + r.test_failures.size() + r.probe_findings.size();
    o.errors += (r.run_error.empty() ? 0 : 1) + r.write_errors.size();
    o.total_allocations += r.allocations;
  }
  o.findings = o.program_findings + (o.campaign.failure ? 1 : 0);
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (c.json) {
    out << report_json(c, o) << "\n";
  } else {
    print_text(out, c, o);
  }
  // The JUnit file comes after the report, so a file that cannot be written loses nothing else.
  if (!c.junit.empty() && !write_output("report", c.junit, report_junit(c, o), err)) {
    return exit_after_write_failure(o.exit_code());
  }
  return o.exit_code();
}

}  // namespace devplan::harness
