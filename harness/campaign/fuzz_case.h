// One case of a `devplan fuzz` campaign: a generated program run through every invariant the
// property tests check, without RapidCheck, fast enough for thousands of cases per second.
//
//   std::optional<FuzzFinding> f = run_fuzz_case(scenario, case_seed, options);
//   if (f) std::cerr << f->check << ": " << f->message;
//
// The invariants, in order:
//   round-trip   the program reads back with the scenario's buffer sizes and devices;
//   placement    each load makes exactly one device allocation per non-CPU, non-empty buffer,
//                on its device index, of its size, aligned to 16, owned "<method>/buffer <i>";
//                every planned tensor lies inside its own buffer;
//   execute      every loaded method executes on the devices (simulated, or real ones under
//                FuzzCaseOptions::device_memory);
//   cleanup      after unloading (in a random order) and destroying the Module, no allocation
//                is live and no misuse was recorded (leaks are named with their owners);
//   fault        failing a random k-th allocation makes a load fail with
//                MemoryAllocationFailed and leaves nothing live; the next load succeeds;
//   corruption   a random corruption of the program is rejected with InvalidProgram;
//   differential (with --differential) both engines agree (differential_check.h).
// The random choices (load and unload order, k, the corruption) come from `case_seed`.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <harness/campaign/fuzz_finding.h>
#include <harness/scenario/model.h>
#include <mocks/compute_bug.h>
#include <mocks/ledger_records.h>
#include <mocks/unload_bug_allocator.h>
#include <runtime_ext/module/module.h>

namespace devplan::harness {

// Device allocations made by the checks of fuzz cases (every check's devices), summed.
struct AllocationTotals {
  uint64_t allocations = 0;
  uint64_t frees = 0;
  uint64_t allocated_bytes = 0;
};

struct FuzzCaseOptions {
  UnloadBug unload_bug = UnloadBug::None;  // --inject-bug: the hunter's self-test
  // --inject-bug with --differential: the device backends' compute made wrong for probe.
  ComputeBug compute_bug = ComputeBug::None;
  // --differential: after the checks above, the program goes through both engines
  // (differential_check.h); a divergence is a finding "differential".
  bool differential = false;
  // Where known divergences are counted, by id (null: not counted).
  std::map<std::string, uint64_t>* known_divergences = nullptr;
  // Where the cases' device allocations are counted (null: not counted).
  AllocationTotals* totals = nullptr;
  // --device cuda: the real device memory every check's tracking allocator sits on (serving
  // every index the scenarios use); null: simulated devices.
  DeviceAllocator* device_memory = nullptr;
};

std::optional<FuzzFinding> run_fuzz_case(const ProgramScenario& scenario, uint64_t case_seed,
                                         const FuzzCaseOptions& options);

// The placement invariant for method `m`, loaded in `module`: the device allocations its load
// added to `ledger` (from index `before`) and where its tensors lie (see above).
std::optional<FuzzFinding> check_placement(const MethodScenario& m, Module& module,
                                           const std::vector<AllocationRecord>& ledger,
                                           size_t before);

}  // namespace devplan::harness
