#include <harness/campaign/fuzz_campaign.h>

#include <chrono>

#include <runtime_ext/planning/split_mix64.h>

namespace devplan::harness {
namespace {

std::optional<FuzzFinding> run_draft(const ProgramDraft& draft, uint64_t seed,
                                     const FuzzCaseOptions& checks) {
  return run_fuzz_case(resolve_program_draft(draft), seed, checks);
}

// Tries removing each element of `items` (last first); keeps a removal when the case still
// fails with `check`. Returns the number of removals kept.
template <typename T>
size_t shrink_list(std::vector<T>& items, ProgramDraft& draft, uint64_t seed,
                   const FuzzCaseOptions& checks, const std::string& check, size_t* attempts,
                   FuzzFinding* latest) {
  size_t kept = 0;
  for (size_t i = items.size(); i-- > 0 && *attempts > 0;) {
    T removed = items[i];
    items.erase(items.begin() + static_cast<std::ptrdiff_t>(i));
    --*attempts;
    std::optional<FuzzFinding> f = run_draft(draft, seed, checks);
    if (f && f->check == check) {
      *latest = *f;
      ++kept;
    } else {
      items.insert(items.begin() + static_cast<std::ptrdiff_t>(i), std::move(removed));
    }
  }
  return kept;
}

}  // namespace

uint64_t case_seed(uint64_t seed, uint64_t k) {
  // Two SplitMix64 steps: the campaign's stream, then case k's position in it.
  return SplitMix64(SplitMix64(seed).next() ^ (k * 0xd1b54a32d192ed03ull + 1)).next();
}

CampaignFailure minimise_failure(const ProgramDraft& original, uint64_t case_index, uint64_t seed,
                                 const FuzzCaseOptions& checks, size_t max_attempts) {
  CampaignFailure failure;
  failure.case_index = case_index;
  failure.case_seed = seed;
  ProgramDraft draft = original;
  std::optional<FuzzFinding> first = run_draft(draft, seed, checks);
  failure.finding = first.value_or(FuzzFinding{"unknown", "the case did not fail again"});
  const std::string check = failure.finding.check;
  size_t attempts = max_attempts;
  bool progress = first.has_value();
  while (progress && attempts > 0) {
    size_t kept =
        shrink_list(draft.methods, draft, seed, checks, check, &attempts, &failure.finding);
    for (MethodDraft& m : draft.methods) {
      kept += shrink_list(m.instructions, draft, seed, checks, check, &attempts, &failure.finding);
      kept += shrink_list(m.inputs, draft, seed, checks, check, &attempts, &failure.finding);
      kept += shrink_list(m.outputs, draft, seed, checks, check, &attempts, &failure.finding);
      kept += shrink_list(m.values, draft, seed, checks, check, &attempts, &failure.finding);
      kept += shrink_list(m.tensors, draft, seed, checks, check, &attempts, &failure.finding);
      kept += shrink_list(m.buffers, draft, seed, checks, check, &attempts, &failure.finding);
      kept += shrink_list(m.types, draft, seed, checks, check, &attempts, &failure.finding);
    }
    failure.shrink_steps += kept;
    progress = kept > 0;
  }
  failure.minimal = resolve_program_draft(draft);
  return failure;
}

CampaignResult run_campaign(const CampaignOptions& options,
                            const std::function<void(const CampaignProgress&)>& progress) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  CampaignResult result;
  Clock::time_point last_report = start;
  FuzzCaseOptions checks = options.checks;
  checks.known_divergences = &result.known_divergences;
  checks.totals = &result.totals;
  const uint32_t shards = options.shard_count == 0 ? 1 : options.shard_count;
  for (uint64_t k = options.only_case.value_or(options.shard_index);; k += shards) {
    if (options.only_case && k != *options.only_case) break;
    if (!options.only_case && options.max_cases > 0 && result.cases >= options.max_cases) break;
    if (!options.only_case && options.max_seconds > 0 && elapsed() >= options.max_seconds) break;
    const uint64_t seed = case_seed(options.seed, k);
    if (options.on_case_start) options.on_case_start(k);
    const ProgramDraft draft = generate_program_draft(seed, options.scenario);
    std::optional<FuzzFinding> f = run_draft(draft, seed, checks);
    ++result.cases;
    if (f) {
      result.failure =
          minimise_failure(draft, k, seed, options.checks, options.max_shrink_attempts);
      break;
    }
    if (progress && Clock::now() - last_report > std::chrono::milliseconds(200)) {
      last_report = Clock::now();
      progress(CampaignProgress{result.cases, 0, elapsed()});
    }
  }
  result.seconds = elapsed();
  if (progress) progress(CampaignProgress{result.cases, result.failure ? 1u : 0u, result.seconds});
  return result;
}

std::string replay_command(const CampaignOptions& options, uint64_t case_index,
                           const std::string& extra_options) {
  return "devplan fuzz --seed " + std::to_string(options.seed) + " --case " +
         std::to_string(case_index) + extra_options +
         (options.checks.differential ? " --differential" : "");
}

}  // namespace devplan::harness
