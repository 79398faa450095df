#include <harness/services/report.h>

#include <iostream>

#include <harness/engine/child_process.h>
#include <harness/engine/program_image.h>
#include <harness/engine/run_report.h>
#include <harness/json/json.h>
#include <harness/services/bundled_tests.h>
#include <harness/services/check.h>
#include <harness/services/probe.h>
#include <harness/services/program_summary.h>
#include <harness/services/report_row_wire.h>
#include <harness/services/run.h>
#include <runtime_ext/analysis/plan_check.h>
#include <runtime_ext/core/byte_count.h>

namespace devplan::harness {
namespace {

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

// A bundled program's test sets, run into `row`.
void report_test_sets(const ProgramImage& image, const std::string& file,
                      const ReportOptions& options, ProgramRow& row) {
  BundledTestOptions tests_options;
  tests_options.runtime = options.runtime;
  tests_options.device = options.device;
  tests_options.ceilings = options.ceilings;
  Result<BundledTestReport> tests = run_bundled_tests(image, file, tests_options);
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
    if (!t.missing.empty()) {
      row.not_run.push_back({name, t.missing, ""});
    } else {
      row.test_failures.push_back(name + ": " + t.message);
    }
  }
}

// devplan probe on the program, into `row`'s probe column.
void report_probe(const ProgramImage& image, const ReportOptions& options, ProgramRow& row) {
  ProbeOptions probe_options;
  probe_options.runtime = options.runtime;
  probe_options.device = options.device;
  probe_options.data = options.data;
  probe_options.max_host_bytes = options.ceilings.max_host_buffer_bytes;
  bool usage_error = false;
  Result<ProbeReport> probe = probe_program(image, probe_options, &usage_error);
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

}  // namespace

ProgramRow report_program(const std::string& file, const ReportOptions& options,
                          const ReportPictures& pictures) {
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
  Result<std::vector<MethodCheck>> checks = check_program(*program);
  if (checks.ok()) {
    for (const MethodCheck& c : *checks) row.overlaps += c.overlaps.size();
  }
  SimulationOptions simulation;
  simulation.runtime = options.runtime;
  simulation.device = options.device;
  simulation.ceilings = options.ceilings;
  simulation.data_paths = options.data;
  Result<SimulationResult> sim = simulate_program(*image, simulation);
  if (sim.ok()) {
    row.allocations = sim->allocations.size();
    row.leaks = sim->leaks.size();
    row.misuse = sim->misuse.size();
    if (pictures.timeline) {
      Error e = pictures.timeline(row.name, file, *sim);
      if (!e.ok()) row.write_errors.push_back(e.to_string());
    }
  }
  for (const MethodSummary& m : *summary) {
    const std::string too_large = exceeded_ceiling(m, options.ceilings, options.runtime);
    if (!too_large.empty()) {
      row.not_run.push_back({m.name, MissingCapability(), too_large});
      continue;
    }
    bool usage_error = false;
    MissingCapability missing;
    Result<RunReport> run =
        run_program_image(*image, file, m.name, {}, &usage_error, options.device, options.runtime,
                          options.ceilings, options.data, &missing);
    if (!run.ok()) {
      if (!missing.empty()) {
        row.not_run.push_back({m.name, missing, ""});
      } else if (row.run_error.empty()) {
        row.run_error = run.error().to_string();
      }
      continue;
    }
    ++row.methods_run;
    row.leaks += run->leak_lines.size();
    row.misuse += run->misuse_lines.size();
  }
  if (image->bundled() != nullptr) report_test_sets(*image, file, options, row);
  report_probe(*image, options, row);
  if (pictures.plan) {
    Error e = pictures.plan(row.name, file, *program);
    if (!e.ok()) row.write_errors.push_back(e.to_string());
  }
  return row;
}

ProgramRow report_program_isolated(const std::string& file, const ReportOptions& options,
                                   const ReportPictures& pictures, std::ostream& err) {
  if (options.runtime != RuntimeKind::Executorch) return report_program(file, options, pictures);
  ChildOutcome child = run_in_child([&](std::string* out) {
    *out = write_json(row_wire_json(report_program(file, options, pictures)));
    std::cerr.flush();
    return 0;
  });
  err << child.err;
  if (child.started && !child.signaled() && child.exit_code == 0) {
    Result<Json> row = parse_json(child.out);
    try {
      if (row.ok()) return row_from_wire_json(*row);
    } catch (const Json::exception&) {  // a child that printed something else: an error below
    }
  }
  ProgramRow row;
  row.name = base_name(file);
  row.error = "ExecuTorch aborted: " + child.describe();
  row.misuse = 1;
  return row;
}

ReportTotals report_totals(const std::vector<ProgramRow>& rows) {
  ReportTotals totals;
  for (const ProgramRow& r : rows) {
    if (!r.error.empty()) {
      ++totals.errors;
      continue;
    }
    totals.program_findings +=
        r.leaks + r.misuse + r.overlaps + r.test_failures.size() + r.probe_findings.size();
    totals.errors += (r.run_error.empty() ? 0 : 1) + r.write_errors.size();
    totals.allocations += r.allocations;
  }
  return totals;
}

}  // namespace devplan::harness
