// A `devplan fuzz` campaign: numbered cases, each a program generated from the campaign seed
// and the case number, run through run_fuzz_case. Case k's seed depends only on (seed, k), so
// `--shard I/N` (cases with k % N == I) splits one campaign across machines deterministically,
// and `--case K` replays one case anywhere.
//
//   CampaignOptions options;
//   options.seed = 7;
//   options.max_cases = 10000;
//   CampaignResult r = run_campaign(options, [](const CampaignProgress& p) { ... });
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include <harness/campaign/fuzz_case.h>
#include <harness/scenario/seeded_generator.h>

namespace devplan::harness {

struct CampaignOptions {
  uint64_t seed = 1;
  uint64_t max_cases = 0;    // 0: no limit (then max_seconds must be set)
  double max_seconds = 0;    // 0: no limit
  uint32_t shard_index = 0;  // this machine runs cases with k % shard_count == shard_index
  uint32_t shard_count = 1;
  std::optional<uint64_t> only_case;  // --case K: run just this case
  ScenarioOptions scenario;
  FuzzCaseOptions checks;
  size_t max_shrink_attempts = 3000;
  // Called with each case's index before it runs (may be empty).
  std::function<void(uint64_t case_index)> on_case_start;
};

struct CampaignProgress {
  uint64_t cases = 0;
  uint64_t failures = 0;
  double seconds = 0;
};

struct CampaignFailure {
  uint64_t case_index = 0;
  uint64_t case_seed = 0;
  FuzzFinding finding;      // of the minimised case
  ProgramScenario minimal;  // the minimised program
  size_t shrink_steps = 0;  // accepted reductions
};

struct CampaignResult {
  uint64_t cases = 0;
  double seconds = 0;
  std::optional<CampaignFailure> failure;             // the first failure; the campaign stops there
  std::map<std::string, uint64_t> known_divergences;  // --differential: by id, over all cases
  AllocationTotals totals;  // device allocations of the cases run (not of the minimisation)
};

// The command line that replays case `case_index` of the campaign: "devplan fuzz --seed S
// --case K<extra_options>[ --differential]" (`extra_options` such as " --devices cuda:0").
std::string replay_command(const CampaignOptions& options, uint64_t case_index,
                           const std::string& extra_options = "");

// The seed of case `k` of a campaign with `seed`.
uint64_t case_seed(uint64_t seed, uint64_t k);

// Runs cases until a limit or the first failure. `progress` is called now and then (may be
// empty).
CampaignResult run_campaign(const CampaignOptions& options,
                            const std::function<void(const CampaignProgress&)>& progress);

// Reduces `draft` (whose case fails) by removing methods and list items while the case still
// fails with the same check; returns the smallest failing scenario found.
CampaignFailure minimise_failure(const ProgramDraft& draft, uint64_t case_index, uint64_t seed,
                                 const FuzzCaseOptions& checks, size_t max_attempts);

}  // namespace devplan::harness
