// `devplan run FILE ...`: execute a method and print its outputs, or a bundled program's test
// cases (docs/commands/run.md).
// Takes the words after the command's name and the streams to write to; returns the exit code
// (values/exit_codes.h). A function, not a process, so tests run it in-process.
#pragma once

#include <ostream>

#include <harness/options/command_line.h>

namespace devplan::harness {

int run_command(const Args& args, std::ostream& out, std::ostream& err);

}  // namespace devplan::harness
