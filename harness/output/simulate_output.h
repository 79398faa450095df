// How `devplan simulate` prints its result: the text report and its JUnit cases (the JSON
// document is simulate_json in json_reports.h).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <harness/output/junit.h>
#include <harness/services/simulation.h>

namespace devplan::harness {

// The text report of the simulation of `file`: each method's load and buffers, the allocation
// ledger, failed allocations, per-device statistics, leaks and misuse; then the "result:" line
// for exit code `code` (cli::kExit*) and the summary line.
void print_simulation_text(std::ostream& out, const std::string& file, const SimulationResult& r,
                           int code);

// One JUnit case per method load, plus one for leaks and one for misuse.
std::vector<JunitCase> simulation_junit_cases(const std::string& file, const SimulationResult& r);

}  // namespace devplan::harness
