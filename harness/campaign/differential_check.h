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

#include <harness/campaign/fuzz_finding.h>
#include <harness/campaign/known_divergences.h>
#include <harness/campaign/output_comparison.h>
#include <harness/engine/run_report.h>

namespace devplan::harness {

struct DifferentialResult {
  std::optional<FuzzFinding> divergence;  // check "differential": what differs, both sides
  std::map<std::string, uint64_t> known;  // known divergences seen, by id
};

// Runs `bytes` through both engines. Outputs are compared for the methods named in
// `compared_outputs` (every method when null). `device_memory`: real device memory both engines'
// devices sit on (--device cuda); null: simulated. Needs the ExecuTorch engine
// (executorch_available()).
DifferentialResult compare_engines(const std::vector<uint8_t>& bytes,
                                   const std::vector<std::string>* compared_outputs = nullptr,
                                   DeviceAllocator* device_memory = nullptr);

}  // namespace devplan::harness
