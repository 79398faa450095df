// A command's work under ExecuTorch, in a child process: ExecuTorch aborts on some programs, and
// the abort becomes a finding of the command instead of taking devplan down.
#pragma once

#include <functional>
#include <ostream>
#include <string>

namespace devplan::harness {

// Runs `work` (the command's whole work: it writes its output to the stream it is given, its
// errors to standard error, and returns the exit code) in a child process and passes both on.
// An abort prints "devplan <command>: FINDING: ExecuTorch aborted while <doing> <file>: <how>"
// and is exit 3; a child that could not start, exit 1.
int run_in_child_command(const std::string& command, const std::string& doing,
                         const std::string& file, const std::function<int(std::ostream&)>& work,
                         std::ostream& out, std::ostream& err);

}  // namespace devplan::harness
