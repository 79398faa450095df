// The command line shared by `devplan plan` and `devplan replan`:
//   <INPUT> -o OUT.pte [--algorithm naive|greedy|greedy_breadth|search|exact|best]
//           [--budget-steps N] [--json]
// and, for `plan` only (allow_intervals), the field's instance format instead of a graph:
//   --intervals IN.csv [--capacity SIZE] [--time-limit SECONDS] [-o OUT.csv] [--json]
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include <harness/options/command_line.h>
#include <harness/values/bound_ratio.h>
#include <runtime_ext/planning/offset_planner.h>

namespace devplan::harness {

struct PlannerCommandArgs {
  std::string input;
  std::string output;
  PlannerAlgorithm algorithm = PlannerAlgorithm::Best;
  int64_t budget_steps = -1;  // the exact search's nodes per buffer; negative: the default
  bool json = false;
  std::string intervals;             // --intervals IN.csv
  std::optional<uint64_t> capacity;  // --capacity SIZE
  std::optional<double> time_limit;  // --time-limit SECONDS
};

// Parses `args` for `command` ("plan") into `parsed`. Nullopt when the command should go on;
// otherwise the exit code (0 after --help, 2 after a usage error printed on `err`). The input
// positional is named `input_name` ("GRAPH.json") in help and errors.
std::optional<int> parse_planner_command(const Args& args, const char* command,
                                         const char* input_name, const char* description,
                                         PlannerCommandArgs* parsed, std::ostream& out,
                                         std::ostream& err, bool allow_intervals = false);

// Adds --budget-steps N (a non-negative search-node count) to `app`, stored in `steps`.
void add_budget_steps_option(CLI::App& app, int64_t* steps, const char* description);

// Reports `error` the command's way ({"error": {"code", "message"}} with --json, a line on
// `err` otherwise) and returns exit code 1.
int fail_command(const Error& error, const char* command, bool json, std::ostream& out,
                 std::ostream& err);

}  // namespace devplan::harness
