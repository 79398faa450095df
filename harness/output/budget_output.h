// How `devplan budget` prints its results: what `budget record` recorded (text, JSON) and what
// `budget check` found (text, JSON, JUnit cases).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <harness/engine/device_environment.h>
#include <harness/output/junit.h>
#include <harness/services/budget_file.h>
#include <harness/services/budget_match.h>
#include <harness/services/budget_measure.h>

namespace devplan::harness {

// "recorded 2 programs (3 methods) in budget.json", then each recorded program's methods, the
// loads with placeholders, and the programs dropped or kept.
void print_budget_record_text(std::ostream& out, const Budget& budget, const std::string& path,
                              const BudgetRecording& recording, const DeviceSetup& device);

// {"budget", "devices" (cuda only), "programs": [{"name", "methods"}] (the recorded ones),
//  "dropped", "kept"}
std::string budget_record_json(const Budget& budget, const std::string& path,
                               const BudgetRecording& recording, const DeviceSetup& device);

// Per program "ok" or how many figures grew, with every finding; then the result, and `accept`
// (the command that accepts the change) when something grew.
void print_budget_check_text(std::ostream& out, const std::string& budget_file,
                             const std::vector<ProgramCheck>& checks, const std::string& accept,
                             const DeviceSetup& device);

// {"budget", "devices" (cuda only), "programs": [{"name", "file", "result", "findings"}],
//  "failures", "result": "ok"|"grew", "accept" (null when nothing grew)}
std::string budget_check_json(const std::string& budget_file,
                              const std::vector<ProgramCheck>& checks, const std::string& accept,
                              const DeviceSetup& device);

// One case per program and method; a method's failures are its growth lines.
std::vector<JunitCase> budget_check_junit_cases(const std::vector<ProgramCheck>& checks);

}  // namespace devplan::harness
