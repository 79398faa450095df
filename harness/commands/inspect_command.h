// `devplan inspect FILE [--data FILE.ptd]... [--json]`: a program's methods, planned buffers and
// their devices, or a data file's tensors (docs/commands/inspect.md).
// Takes the words after the command's name and the streams to write to; returns the exit code
// (values/exit_codes.h). A function, not a process, so tests run it in-process.
#pragma once

#include <ostream>

#include <harness/options/command_line.h>

namespace devplan::harness {

int inspect_command(const Args& args, std::ostream& out, std::ostream& err);

}  // namespace devplan::harness
