// What `devplan report` measures of one program: a row of its table (report.h measures it;
// report_row_wire.h carries it out of a child process; harness/output/report_output.h prints it).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include <harness/engine/missing_capability.h>

namespace devplan::harness {

// A method (or a bundled test case) that was not run, and why: not an error.
struct NotRun {
  std::string name;           // "forward", "forward test case 1"
  MissingCapability missing;  // what the engine lacks, when that is why
  std::string reason;         // else why not ("... exceeds --max-device-allocation (...)")
  // "forward: no kernel for aten::convolution.out".
  std::string text() const { return name + ": " + (missing.empty() ? reason : missing.text()); }
};

struct ProgramRow {
  std::string name;
  std::string error;  // a program that does not load
  size_t methods = 0;
  std::map<std::string, size_t> buffers_per_device;
  size_t allocations = 0;
  size_t leaks = 0;
  size_t misuse = 0;
  size_t overlaps = 0;
  size_t methods_run = 0;
  std::string run_error;
  // Methods an engine cannot run for want of a kernel or backend, or that exceed a memory
  // ceiling: reported, not an error.
  std::vector<NotRun> not_run;
  std::vector<std::string> write_errors;  // pictures that could not be written
  // Bundled programs: their test cases run, and the failures ("forward test case 1: output 0
  // element 2: ..."); cases that need a missing kernel or backend go to not_run.
  size_t test_cases = 0;
  size_t test_cases_passed = 0;
  std::vector<std::string> test_failures;
  // devplan probe's verdict ("clean", "2 findings", "not probed", "error") and its findings'
  // lines (leaks and misuse included), or why it could not run.
  std::string probe;
  std::vector<std::string> probe_findings;
  std::vector<std::string> probe_errors;  // what probe could not execute (run says it too)
};

}  // namespace devplan::harness
