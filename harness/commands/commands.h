// The `devplan` commands. Each takes its arguments (after the command's name) and the streams to
// write to, and returns the process exit code (cli::kExit*). They are functions, not processes,
// so tests run them in-process; harness/cli/command_table.cpp names them for `devplan`.
#pragma once

#include <ostream>

#include <harness/options/command_line.h>

namespace devplan::harness {

int inspect_command(const Args& args, std::ostream& out, std::ostream& err);
int simulate_command(const Args& args, std::ostream& out, std::ostream& err);
int run_command(const Args& args, std::ostream& out, std::ostream& err);
int check_command(const Args& args, std::ostream& out, std::ostream& err);
int plot_command(const Args& args, std::ostream& out, std::ostream& err);
int fuzz_command(const Args& args, std::ostream& out, std::ostream& err);
int report_command(const Args& args, std::ostream& out, std::ostream& err);
int plan_command(const Args& args, std::ostream& out, std::ostream& err);
int replan_command(const Args& args, std::ostream& out, std::ostream& err);
int diff_command(const Args& args, std::ostream& out, std::ostream& err);
int budget_command(const Args& args, std::ostream& out, std::ostream& err);
int probe_command(const Args& args, std::ostream& out, std::ostream& err);

}  // namespace devplan::harness
