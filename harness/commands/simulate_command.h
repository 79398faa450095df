// `devplan simulate FILE ...`: load and unload methods on simulated devices or a GPU; the ledger,
// leaks and misuse (docs/commands/simulate.md).
// Takes the words after the command's name and the streams to write to; returns the exit code
// (values/exit_codes.h). A function, not a process, so tests run it in-process.
#pragma once

#include <ostream>

#include <harness/options/command_line.h>

namespace devplan::harness {

int simulate_command(const Args& args, std::ostream& out, std::ostream& err);

}  // namespace devplan::harness
