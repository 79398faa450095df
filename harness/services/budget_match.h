// `devplan budget check` over several programs: the programs given matched with the budget's
// entries, and each one's measured figures checked against its entry (budget_check.h).
//
//   if (Error e = unmatched_programs(budget, "budget.json", files, data, device); !e.ok()) ...
//   std::vector<ProgramCheck> checks = check_programs(budget, measured, files, tolerances);
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <harness/engine/device_environment.h>
#include <harness/services/budget_check.h>
#include <harness/services/budget_file.h>
#include <runtime_ext/core/error.h>

namespace devplan::harness {

// One program's check.
struct ProgramCheck {
  std::string name;  // the budget's key
  std::string file;
  std::vector<std::string> methods;  // measured now, then those only the budget has
  std::vector<BudgetFinding> findings;
  size_t failures() const;  // the findings that grew beyond their tolerance
};

// The tolerances `budget check` was given; a program's own tolerance in the budget wins over
// `bytes_pct`, which wins over the budget's.
struct BudgetCheckTolerances {
  std::optional<double> bytes_pct;        // --tolerance
  std::optional<double> allocations_pct;  // --allocation-tolerance (default 0)
};

// Which of the budget's programs a check covers.
enum class BudgetScope {
  Whole,      // every program: an entry without its file is an error
  GivenOnly,  // the files given (--only-given: one budget shared by several checks)
};

// The command that records `files` into `budget_file` anew, accepting what changed:
// "devplan budget record a.pte b.pte --data w.ptd --device cuda -o budget.json" (with --update
// under BudgetScope::GivenOnly, which keeps the budget's other programs).
std::string accept_command(const std::vector<std::string>& files, const std::string& budget_file,
                           const std::vector<std::string>& data, const DeviceSetup& device,
                           BudgetScope scope = BudgetScope::Whole);

// NotFound naming what is missing on either side (a file the budget lacks, with the command
// that adds it; under BudgetScope::Whole, a budget entry without its file), all of it joined by
// "; "; Ok when nothing is.
Error unmatched_programs(const Budget& budget, const std::string& budget_file,
                         const std::vector<std::string>& files,
                         const std::vector<std::string>& data, const DeviceSetup& device,
                         BudgetScope scope = BudgetScope::Whole);

// Each of `files` (all in `budget` and in `measured`, by budget_key) checked against its entry.
std::vector<ProgramCheck> check_programs(const Budget& budget,
                                         const std::map<std::string, BudgetProgram>& measured,
                                         const std::vector<std::string>& files,
                                         const BudgetCheckTolerances& tolerances);

// The failures of all `checks`.
size_t budget_failures(const std::vector<ProgramCheck>& checks);

}  // namespace devplan::harness
