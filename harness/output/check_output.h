// How `devplan check` prints its result: the text report, and the JSON document with each
// overlap's probe evidence (--probe).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <harness/services/check.h>
#include <harness/services/probe.h>
#include <harness/services/replan.h>
#include <runtime_ext/analysis/plan_check.h>

namespace devplan::harness {

// The text report: per method its buffers with their lower bounds and optimums, warnings, notes,
// external data (`data`, when given), overlaps with their probe evidence (`probe`, when given)
// and device violations; then the data files and a "result:" line.
void print_check_text(std::ostream& out, const std::string& file,
                      const std::vector<MethodCheck>& checks,
                      const std::vector<std::vector<BufferOptimum>>& optimums,
                      const CheckedData* data, const ProbeReport* probe);

// check_json (json_reports.h) with each overlap's "probe" object from `probe` when given.
std::string check_report_json(const std::string& file, const std::vector<MethodCheck>& checks,
                              const std::vector<std::vector<BufferOptimum>>& optimums,
                              const CheckedData* data, const ProbeReport* probe);

}  // namespace devplan::harness
