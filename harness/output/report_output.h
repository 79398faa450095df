// How `devplan report` prints what it measured (harness/services/report.h) and ran: the text
// table, the JSON document (each program's entry included) and the JUnit XML; and how it draws
// and writes each program's pictures.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <harness/campaign/fuzz_campaign.h>
#include <harness/engine/data_files.h>
#include <harness/engine/device_environment.h>
#include <harness/engine/runtime_kind.h>
#include <harness/json/json.h>
#include <harness/services/report.h>
#include <harness/values/exit_codes.h>

namespace devplan::harness {

// Everything a report says, computed once and then printed as text, JSON or JUnit.
struct ReportOutcome {
  // What was asked.
  RuntimeKind runtime = RuntimeKind::Devplan;
  DeviceSetup device;
  std::string out_dir;  // where the pictures went
  CampaignOptions fuzz;
  // What came of it.
  std::vector<ProgramRow> rows;
  std::shared_ptr<const DataFiles> data_files;  // --data, read once to be counted
  CampaignResult campaign;
  ReportTotals totals;
  double seconds = 0;

  size_t findings() const { return totals.program_findings + (campaign.failure ? 1 : 0); }
  const char* result() const {
    return findings() > 0 ? "FINDINGS" : totals.errors > 0 ? "ERRORS" : "ok";
  }
  int exit_code() const {
    return findings() > 0 ? cli::kExitFinding : totals.errors > 0 ? cli::kExitError : cli::kExitOk;
  }
};

// DIR/<program>-timeline.svg and DIR/<program>.svg, written into `out_dir`.
ReportPictures report_pictures(const std::string& out_dir);

// One program's entry in the JSON document.
Json report_row_json(const ProgramRow& row);
void print_report_text(std::ostream& out, const ReportOutcome& o);
std::string report_json(const ReportOutcome& o);
std::string report_junit(const ReportOutcome& o);

}  // namespace devplan::harness
