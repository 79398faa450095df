// `devplan report`'s measuring: each program inspected, checked, simulated, each method run, a
// bundled program's test cases run and the program probed, into one ProgramRow (report_row.h).
// Under ExecuTorch, which aborts on some programs, a child process measures each program and
// sends its row back (report_row_wire.h).
//
//   ProgramRow row = report_program_isolated(file, options, pictures, std::cerr);
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include <harness/engine/device_environment.h>
#include <harness/engine/runtime_kind.h>
#include <harness/services/memory_ceilings.h>
#include <harness/services/report_row.h>
#include <harness/services/simulation.h>
#include <runtime_ext/program/program.h>

namespace devplan::harness {

struct ReportOptions {
  RuntimeKind runtime = RuntimeKind::Devplan;
  DeviceSetup device;             // --device, --device-map
  MemoryCeilings ceilings;        // for the run step (host-backed); simulation is unbacked
  std::vector<std::string> data;  // --data: data files (.ptd) of the programs
};

// How a program's pictures are drawn and written (the SVG writers sit above the services): each
// returns the error writing failed with. Either may be empty (no picture).
struct ReportPictures {
  // The device bytes over the allocations: `name`-timeline.svg, from the simulation.
  std::function<Error(const std::string& name, const std::string& file,
                      const SimulationResult& simulation)>
      timeline;
  // The memory plan of `program` (read from `file`): `name`.svg (nothing, and no error, when it
  // cannot be drawn).
  std::function<Error(const std::string& name, const std::string& file, const Program& program)>
      plan;
};

// The program in `file`, measured.
ProgramRow report_program(const std::string& file, const ReportOptions& options,
                          const ReportPictures& pictures);
// report_program, in a child process under ExecuTorch (its stderr goes to `err`): an abort
// becomes the row's error and a misuse finding.
ProgramRow report_program_isolated(const std::string& file, const ReportOptions& options,
                                   const ReportPictures& pictures, std::ostream& err);

// The report's counts over its rows.
struct ReportTotals {
  size_t program_findings = 0;  // leaks, misuse, overlaps, failed test cases, probe findings
  size_t errors = 0;            // programs that do not load, runs that fail, pictures not written
  size_t allocations = 0;       // device allocations
};
ReportTotals report_totals(const std::vector<ProgramRow>& rows);

}  // namespace devplan::harness
