// The program-loader fuzz entry point: one input's bytes through everything that reads a
// program file, with the simulated device installed, and a check of the device ledger after.
// Shared by the libFuzzer target fuzz_program_load and by the g++-built replay test, which
// runs the committed corpus and every regression input through the same code.
//
//   ProgramLoadOutcome outcome = run_program_load(Span<const uint8_t>(data, size));
//   if (!outcome.clean()) { fprintf(stderr, "%s\n", outcome.finding.c_str()); abort(); }
//
// What one input goes through, in order:
//   1. Program::load_from_bytes; on success, for every method: method_name, method_status,
//      method_meta and every MethodMeta query (buffers, inputs, outputs, backends), plus one
//      out-of-range query of each kind (which must be InvalidArgument).
//   2. A Module over a copy of the bytes (ModuleOptions capped by kMaxHostBufferBytes and a
//      MethodRuntime capped by kMaxRuntimeBoundBytes and kMaxSteps), with a fresh
//      TrackingDeviceAllocator installed for CUDA (ScopedDeviceAllocator; every index capped at
//      kDeviceCapacityBytes, one allocation at kMaxDeviceAllocationBytes) and the
//      SimulatedDeviceBackend registered for the fixtures' add and mul backend ids.
//   3. For every method: load_method; on success set every input (a host tensor of ones of the
//      input's dtype and shape when it holds at most kMaxInputBytes, else the value itself),
//      execute, copy every small tensor output to the host, and unload_method. The first
//      method that loads is loaded once more and left for ~Module to free.
//
// Any returned Error is fine (that is the runtime doing its job). A finding is what the
// runtime's rules forbid: device memory still live after an unload or after ~Module, any
// misuse recorded by the allocator, a device allocation count that differs from the program's
// device buffers, an Error without a message, Program::load_from_bytes and Module::load
// disagreeing, MethodMeta and Module disagreeing on buffer sizes, or an out-of-range query
// that succeeds. Crashes, hangs and sanitizer reports are findings of libFuzzer itself.
//
// Threading: installs allocators and backends on the global registries for the duration of a
// call; run one call at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <mocks/unload_bug_allocator.h>
#include <runtime_ext/core/span.h>

namespace devplan::fuzz {

// The caps every input runs under, so that a program asking for terabytes fails cleanly with
// MemoryAllocationFailed (or is skipped) instead of exhausting the fuzzing process.
inline constexpr uint64_t kMaxDeviceAllocationBytes = uint64_t{1} << 20;
inline constexpr uint64_t kDeviceCapacityBytes = uint64_t{4} << 20;
inline constexpr uint64_t kMaxHostBufferBytes = uint64_t{1} << 20;
inline constexpr uint64_t kMaxRuntimeBoundBytes = uint64_t{1} << 20;
inline constexpr uint64_t kMaxSteps = 10'000;
inline constexpr uint64_t kMaxInputBytes = uint64_t{1} << 16;

struct ProgramLoadOptions {
  // A deliberate bug in front of the device allocator (self-tests of the ledger check only).
  UnloadBug unload_bug = UnloadBug::None;
};

// What one input did. Counters describe how far it got; `finding` says what went wrong.
struct ProgramLoadOutcome {
  bool program_loaded = false;      // Program::load_from_bytes succeeded
  size_t methods = 0;               // methods in the program (valid or not)
  size_t valid_methods = 0;         // methods whose method_meta succeeded
  size_t loaded_methods = 0;        // methods whose first load_method succeeded
  size_t executed_methods = 0;      // methods whose execute() succeeded
  uint64_t device_allocations = 0;  // successful device allocations over the whole input
  // "" when the input broke no rule; otherwise one line per problem, each ending in '\n',
  // with the allocator's leak and misuse reports where they apply.
  std::string finding;

  bool clean() const { return finding.empty(); }
};

// Runs `bytes` through steps 1-3 above. Never aborts; the caller decides what a finding means.
ProgramLoadOutcome run_program_load(Span<const uint8_t> bytes,
                                    const ProgramLoadOptions& options = ProgramLoadOptions());

}  // namespace devplan::fuzz
