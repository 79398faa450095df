#include <harness/output/report_output.h>

#include <cstdio>
#include <utility>

#include <harness/output/json_document.h>
#include <harness/output/json_reports.h>
#include <harness/output/junit.h>
#include <harness/output/output_file.h>
#include <harness/output/plan_svg.h>
#include <harness/output/timeline_svg.h>
#include <harness/services/report_row_wire.h>

namespace devplan::harness {
namespace {

std::string devices_text(const std::map<std::string, size_t>& per_device) {
  std::string text;
  for (const auto& [device, n] : per_device) {
    text += (text.empty() ? "" : " ") + device + "=" + std::to_string(n);
  }
  return text.empty() ? "-" : text;
}

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

}  // namespace

ReportPictures report_pictures(const std::string& out_dir) {
  ReportPictures pictures;
  pictures.timeline = [out_dir](const std::string& name, const std::string& file,
                                const SimulationResult& sim) {
    return write_file(out_dir + "/" + name + "-timeline.svg",
                      timeline_svg(file, sim.events, sim.leaks));
  };
  pictures.plan = [out_dir](const std::string& name, const std::string& file,
                            const Program& program) {
    Result<std::vector<PlotMethod>> plots = plot_methods(program, {});
    return plots.ok() ? write_file(out_dir + "/" + name + ".svg", plan_svg(file, *plots))
                      : Error::success();
  };
  return pictures;
}

Json report_row_json(const ProgramRow& r) {
  // The wire's row, with each method not run as the text the report prints.
  Json j = row_wire_json(r);
  std::vector<std::string> not_run;
  for (const NotRun& n : r.not_run) not_run.push_back(n.text());
  j["not_run"] = not_run;
  return j;
}

void print_report_text(std::ostream& out, const ReportOutcome& o) {
  char line[256];
  out << "runtime: " << runtime_name(o.runtime) << "\n";
  out << "devices: " << o.device.describe() << "\n";
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
    for (const NotRun& n : r.not_run) out << "  not run: " << n.text() << "\n";
    for (const std::string& text : r.probe_findings) out << "  probe: " << text << "\n";
    for (const std::string& text : r.probe_errors) out << "  probe error: " << text << "\n";
    for (const std::string& text : r.write_errors) out << "  cannot write: " << text << "\n";
  }
  if (o.data_files != nullptr) {
    for (const DataFiles::Owned& f : o.data_files->files()) {
      out << "data file: " << data_file_summary(f.file) << "\n";
    }
  }
  out << o.rows.size() << " programs, " << o.totals.allocations
      << " device allocations, all freed: " << (o.totals.program_findings == 0 ? "yes" : "NO")
      << "\n";
  if (o.fuzz.max_cases > 0) {
    std::snprintf(line, sizeof(line), "fuzz: %llu cases in %.1f s, %d failures (seed %llu)%s",
                  static_cast<unsigned long long>(o.campaign.cases), o.campaign.seconds,
                  o.campaign.failure ? 1 : 0, static_cast<unsigned long long>(o.fuzz.seed),
                  o.fuzz.checks.differential ? ", differential against ExecuTorch" : "");
    out << line << "\n";
    if (o.campaign.failure) {
      out << "  " << o.campaign.failure->finding.check << ": "
          << o.campaign.failure->finding.message
          << "\n  replay: " << replay_command(o.fuzz, o.campaign.failure->case_index) << "\n";
    }
  }
  out << "pictures: " << o.out_dir << "/<program>.svg and " << o.out_dir
      << "/<program>-timeline.svg\n";
  out << "result: " << o.result() << "\n";
}

std::string report_json(const ReportOutcome& o) {
  Json doc = json_document();
  doc["runtime"] = runtime_name(o.runtime);
  doc["device"] = o.device.kind == DeviceKind::Simulated ? "simulated" : "cuda";
  if (!o.device.map.empty()) doc["device_map"] = o.device.map.describe();
  doc["result"] = o.result();
  Json programs = Json::array();
  for (const ProgramRow& r : o.rows) programs.push_back(report_row_json(r));
  doc["programs"] = std::move(programs);
  if (o.data_files != nullptr) doc["data_files"] = data_files_json(*o.data_files);
  doc["device_allocations"] = o.totals.allocations;
  doc["all_freed"] = o.totals.program_findings == 0;
  if (o.fuzz.max_cases > 0) {
    Json fuzz;
    fuzz["cases"] = o.campaign.cases;
    fuzz["seconds"] = o.campaign.seconds;
    fuzz["seed"] = o.fuzz.seed;
    fuzz["differential"] = o.fuzz.checks.differential;
    fuzz["failures"] = o.campaign.failure ? 1 : 0;
    if (o.campaign.failure) {
      fuzz["failure"] = {{"check", o.campaign.failure->finding.check},
                         {"message", o.campaign.failure->finding.message},
                         {"case", o.campaign.failure->case_index},
                         {"replay", replay_command(o.fuzz, o.campaign.failure->case_index)}};
    }
    doc["fuzz"] = std::move(fuzz);
  } else {
    doc["fuzz"] = nullptr;
  }
  doc["pictures"] = o.out_dir;
  return write_json(doc);
}

std::string report_junit(const ReportOutcome& o) {
  std::vector<JunitCase> cases;
  for (const ProgramRow& r : o.rows) cases.push_back({"devplan report", r.name, row_failure(r), 0});
  if (o.fuzz.max_cases > 0) {
    std::string failure;
    if (o.campaign.failure) {
      failure = o.campaign.failure->finding.check + ": " + o.campaign.failure->finding.message +
                "\nreplay: " + replay_command(o.fuzz, o.campaign.failure->case_index);
    }
    cases.push_back({"devplan report", "fuzz campaign", failure, o.campaign.seconds});
  }
  return junit_xml("devplan report", cases, o.seconds);
}

}  // namespace devplan::harness
