// Execution evidence for a program's memory (`devplan probe`, `check --probe`, the probe column
// of `report`): each method is executed several times with the same inputs, over planned memory
// devplan owns (host and device buffers, supplied to either engine), and the outputs compared
// bit for bit (docs/probe.md has the whole story):
//
//   poison      every planned buffer filled with kPatternA, then with kPatternB, before loading:
//               an output byte that is A in the first execution and B in the second was never
//               written (UNWRITTEN); an output that differs otherwise depends on memory nobody
//               wrote (UNINITIALIZED);
//   no reuse    the program re-planned so that no two tensors share a byte (plan_variants.h) and
//               executed alike: an output that differs from the planned program's means the
//               plan lets a live tensor be overwritten (PLAN-CORRUPTION);
//   overlaps    (with confirm_overlaps) each overlap `check` reports, tried on its own: one tensor
//               of the pair moved to bytes of its own, and the outputs compared.
//
// Every execution loads the method afresh, so mutable buffers (state kept across executions)
// start from their initial values each time. A third execution repeats the first; outputs that
// differ between those two are nondeterministic and not judged (a note).
//
//   Result<ProbeReport> r = probe_program(image, options, &usage_error);
//   for (const MethodProbe& m : r->methods) for (const ProbeFinding& f : m.findings) f.line();
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <harness/engine/device_environment.h>
#include <harness/engine/program_image.h>
#include <harness/engine/runtime_kind.h>
#include <mocks/compute_bug.h>
#include <runtime_ext/analysis/plan_check.h>
#include <runtime_ext/core/result.h>

namespace devplan::harness {

constexpr uint8_t kPatternA = 0xA5;
constexpr uint8_t kPatternB = 0x3C;

struct ProbeOptions {
  std::vector<std::string> methods;  // empty: every method
  std::vector<std::string> inputs;   // `run --input` text; tensors not given are ones
  std::vector<std::string> data;     // --data FILE.ptd
  RuntimeKind runtime = RuntimeKind::Devplan;
  DeviceSetup device;
  uint64_t max_host_bytes = uint64_t{1} << 32;  // per method's host planned memory
  // Planted bugs (--inject-bug): in the device backends' compute, or in the plan.
  ComputeBug compute_bug = ComputeBug::None;
  bool short_lifetime = false;
  bool confirm_overlaps = false;  // check --probe
};

struct ProbeFinding {
  std::string kind;  // "UNWRITTEN", "UNINITIALIZED", "PLAN-CORRUPTION"
  std::string text;  // "method forward: output 1 (float32[4, 8], cuda:0): 128 of 128 bytes ..."
  std::string line() const { return kind + " " + text; }
};

// One overlap `check` reports, judged by execution.
struct OverlapVerdict {
  Overlap overlap;
  bool confirmed = false;
  std::string evidence;  // "confirmed in execution (output 0 changes when value 5 has ...)"
};

struct MethodProbe {
  std::string name;
  bool probed = false;
  std::string not_probed;  // why not: "no kernel for aten::sin.out", an engine error
  bool error = false;      // not_probed is an error (not a missing kernel or backend)
  size_t executions = 0;
  std::vector<ProbeFinding> findings;
  std::vector<std::string> notes;
  std::vector<OverlapVerdict> overlaps;  // with confirm_overlaps

  // "clean", "2 findings", "not probed" or "error" (a budget's per-method result).
  std::string verdict() const;
};

struct ProbeReport {
  RuntimeKind runtime = RuntimeKind::Devplan;
  std::string devices;   // DeviceSetup::describe()
  std::string injected;  // the planted bug, described ("" when none)
  std::vector<MethodProbe> methods;
  std::vector<std::string> leak_lines;
  std::vector<std::string> misuse_lines;

  size_t finding_count() const;
  bool has_errors() const;
  // "clean", "2 findings" or "not probed" (report's column).
  std::string verdict() const;
};

// One method's probe in short (budget files, fuzz cases): "clean", "not probed", "error" or
// "2 findings", and the findings' lines.
struct MethodProbeVerdict {
  std::string result;
  std::vector<std::string> findings;
};

// probe_program over the file at `path` with `options`, per method; under ExecuTorch or on a GPU
// in a child process (an abort there is the error "executorch aborted while probing: ...").
Result<std::map<std::string, MethodProbeVerdict>> probe_verdicts(const std::string& path,
                                                                 const ProbeOptions& options);

// Errors: the program does not load (its error), the environment cannot be made. A method
// that cannot run is reported in the result. `usage_error` is set for a method the program
// lacks or input text that does not parse.
Result<ProbeReport> probe_program(const ProgramImage& image, const ProbeOptions& options,
                                  bool* usage_error);

}  // namespace devplan::harness
