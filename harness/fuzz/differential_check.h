// The differential check of `devplan fuzz --differential`: one program through both engines
// (runtime_ext and ExecuTorch 1.5.1), each with a fresh tracking allocator, compared on
//   accept   both open the program and load each method, or both refuse (both errors shown);
//   ledger   the device allocations: count, order, devices, sizes, owners and alignment, and
//            that every one was freed with no misuse;
//   execute  each method's outputs, where both engines can execute it (inputs all ones);
//   fault    failing the k-th device allocation, for every k: both fail the load cleanly and
//            leave nothing live.
// A difference listed in docs/executorch-divergences.md is counted under its id instead of
// failing the case.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <harness/commands/run_report.h>
#include <harness/fuzz/fuzz_case.h>

namespace devplan::harness {

// The ids of the known divergences (docs/executorch-divergences.md).
constexpr const char* kDivergenceAlignment = "device-alignment";
constexpr const char* kDivergenceZeroSizeBuffer = "zero-size-device-buffer";
// A case whose program has an IntList that ExecuTorch rejects (it reads the items as value
// indices): the rest of that case is not compared.
constexpr const char* kDivergenceIntListItems = "intlist-items";
// A method that uses a tensor after a FreeCall: not executed under ExecuTorch (it crashes).
constexpr const char* kDivergenceUseAfterFree = "use-after-free";
// A method input planned in device memory: ExecuTorch's set_input refuses host data for it.
constexpr const char* kDivergenceDevicePlannedInput = "device-planned-input";
// A delegate whose backend is not registered: ExecuTorch fails the load (NotFound), runtime_ext
// loads and fails at execute. The rest of the case is not compared.
constexpr const char* kDivergenceMissingBackend = "missing-backend";
// An operator runtime_ext has no kernel for (it has add, mul and the copies; ExecuTorch has its
// CPU kernel library): that method's outputs are not compared.
constexpr const char* kDivergenceMissingKernel = "missing-kernel";

struct DifferentialResult {
  std::optional<FuzzFinding> divergence;  // check "differential": what differs, both sides
  std::map<std::string, uint64_t> known;  // known divergences seen, by id
};

// Whether two engines' outputs agree: the same elements as text, except that in a
// floating-point output every NaN equals every NaN ("nan" and "-nan"): IEEE 754 leaves the sign
// and payload of a NaN result to the implementation. Every other value is compared exactly.
bool same_output_values(const std::vector<OutputValues>& a, const std::vector<OutputValues>& b);

// Runs `bytes` through both engines. Outputs are compared for the methods named in
// `compared_outputs` (every method when null). Needs the ExecuTorch engine
// (executorch_available()).
DifferentialResult compare_engines(const std::vector<uint8_t>& bytes,
                                   const std::vector<std::string>* compared_outputs = nullptr);

}  // namespace devplan::harness
