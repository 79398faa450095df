// Measuring the programs `devplan budget` is given, keyed as a budget keys them (by file name),
// and recording them into a budget.
//
//   Result<std::map<std::string, BudgetProgram>> m = measure_programs(files, data, device);
//   BudgetRecording r = record_programs(budget, std::move(*m), tolerance, RecordMode::Replace);
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <harness/engine/device_environment.h>
#include <harness/services/budget_file.h>
#include <runtime_ext/core/result.h>

namespace devplan::harness {

// Why `files` cannot share one budget ("'a/m.pte' and 'b/m.pte' have the same file name ..."), or
// nullopt when each has a key of its own.
std::optional<std::string> repeated_budget_key(const std::vector<std::string>& files);

// What `budget record` writes over: the budget in the file at `path` (its tolerances carry
// over), or an empty one when there is no file. InvalidArgument "not overwriting '<path>', which
// is not a devplan budget (...)" when the file is not a budget.
Result<Budget> budget_to_record_over(const std::string& path);

// measure_program (budget_file.h) of each file, by budget_key. The first error, naming its file.
Result<std::map<std::string, BudgetProgram>> measure_programs(const std::vector<std::string>& files,
                                                              const std::vector<std::string>& data,
                                                              const DeviceSetup& device);

// What `budget record` does with the budget's programs that were not measured now.
enum class RecordMode {
  Replace,  // drops them: the budget holds exactly the programs given
  Update,   // keeps them (--update: one budget shared by several recordings)
};

// What a recording did with the budget's programs: the ones measured now, and those it had that
// were not, dropped (RecordMode::Replace) or kept (RecordMode::Update).
struct BudgetRecording {
  std::vector<std::string> recorded;
  std::vector<std::string> dropped;
  std::vector<std::string> kept;
};

// `budget record`: puts `measured` into `budget`, each program keeping the tolerance it had in
// the budget, and sets the budget's tolerance when `tolerance` is given.
BudgetRecording record_programs(Budget& budget, std::map<std::string, BudgetProgram> measured,
                                std::optional<double> tolerance,
                                RecordMode mode = RecordMode::Replace);

}  // namespace devplan::harness
