// The last line of `devplan simulate` and `devplan fuzz`, in the sanitizers' style, so that CI
// logs and the tools that grep them for "SUMMARY:" treat devplan like LeakSanitizer:
//
//   SUMMARY: devplan: 768 bytes leaked in 2 allocations
//   SUMMARY: devplan: 768 bytes leaked in 2 allocations; 1 misuse
//   SUMMARY: devplan: no leaks, 1 misuse (6 allocations, 5 frees)
//   SUMMARY: devplan: no leaks, no misuse (6 allocations, 6 frees)
#pragma once

#include <cstdint>
#include <string>

#include <harness/campaign/fuzz_campaign.h>
#include <harness/services/simulation.h>

namespace devplan::harness {

struct LedgerSummary {
  uint64_t allocations = 0;  // successful device allocations
  uint64_t frees = 0;
  uint64_t leaked_bytes = 0;
  uint64_t leaked_allocations = 0;
  uint64_t misuse = 0;
};

std::string summary_line(const LedgerSummary& s);

// The summary of one simulation.
LedgerSummary summarize_ledger(const SimulationResult& r);
std::string simulation_summary(const SimulationResult& r);

// A campaign: the clean line with its totals and case count ("... (6 allocations, 6 frees in
// 1000 cases)"), or "SUMMARY: devplan: fuzz case 17 failed (cleanup); replay: devplan fuzz ...".
std::string fuzz_summary_line(const CampaignResult& result, uint64_t seed,
                              const std::string& replay);

}  // namespace devplan::harness
