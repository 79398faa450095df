// The `devplan` command table: each command's name, its function (commands/*_command.h) and the
// one line `devplan --help` shows for it.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <harness/commands/budget_command.h>
#include <harness/commands/check_command.h>
#include <harness/commands/diff_command.h>
#include <harness/commands/fuzz_command.h>
#include <harness/commands/inspect_command.h>
#include <harness/commands/plan_command.h>
#include <harness/commands/plot_command.h>
#include <harness/commands/probe_command.h>
#include <harness/commands/replan_command.h>
#include <harness/commands/report_command.h>
#include <harness/commands/run_command.h>
#include <harness/commands/simulate_command.h>

namespace devplan::harness {

struct Command {
  const char* name;
  int (*run)(const Args&, std::ostream&, std::ostream&);
  const char* summary;
};

// Every command, in the order `devplan --help` lists them.
const std::vector<Command>& command_table();

// The command named `name`, or nullptr.
const Command* find_command(const std::string& name);

}  // namespace devplan::harness
