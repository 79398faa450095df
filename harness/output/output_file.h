// Writing what a command produces (JSON, JUnit, SVG, CSV) to a file the user named.
#pragma once

#include <ostream>
#include <string>

#include <runtime_ext/core/error.h>

namespace devplan::harness {

// Writes `text` to `path` (replacing it). AccessFailed naming the path on failure.
Error write_file(const std::string& path, const std::string& text);

// write_file for `devplan <command>`: on failure prints "devplan <command>: <error>" on `err`
// and returns false.
bool write_output(const char* command, const std::string& path, const std::string& text,
                  std::ostream& err);

// The exit code once an output file could not be written: a finding (3) stays, anything else
// becomes 1.
int exit_after_write_failure(int code);

}  // namespace devplan::harness
