// The exit codes of every `devplan` command.
#pragma once

namespace devplan::cli {

constexpr int kExitOk = 0;
constexpr int kExitError = 1;    // a program, load or execution error, reported cleanly
constexpr int kExitUsage = 2;    // bad command line
constexpr int kExitFinding = 3;  // the harness found a bug: a leak, misuse or overlap

}  // namespace devplan::cli
