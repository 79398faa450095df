// Fuzz throughput: cases per second of `devplan fuzz` (generation, program writing, the
// round-trip, placement, execute, cleanup, fault and corruption checks) on the simulated
// devices, per core. Goal: at least 2,000 cases per second per core.
// BM_DifferentialCase adds the differential check (the case through ExecuTorch 1.5.1 too):
// goal at least 1,000 cases per second per core. It is skipped, saying why, without the
// ExecuTorch engine.
//
//   build/bin/fuzz_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <map>
#include <string>

#include <harness/campaign/fuzz_campaign.h>
#include <harness/campaign/fuzz_case.h>
#include <harness/engine/engine.h>

namespace devplan::harness {
namespace {

// One full case per iteration with `checks`, over a fixed sequence of seeds; the CPU time per
// case is the per-core cost. state.range(0) is the largest generated buffer in KiB.
void run_cases(benchmark::State& state, const FuzzCaseOptions& checks) {
  ScenarioOptions scenario;
  scenario.max_buffer_bytes = static_cast<uint64_t>(state.range(0)) * 1024;
  uint64_t k = 0, failures = 0;
  for (auto _ : state) {
    const uint64_t seed = case_seed(1, k++);
    std::optional<FuzzFinding> f =
        run_fuzz_case(generate_program_scenario(seed, scenario), seed, checks);
    failures += f.has_value() ? 1 : 0;
  }
  state.counters["cases_per_second"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["failures"] = static_cast<double>(failures);
  if (failures > 0) state.SkipWithError("a fuzz case failed");
}

void BM_FuzzCase(benchmark::State& state) { run_cases(state, FuzzCaseOptions()); }
BENCHMARK(BM_FuzzCase)
    ->ArgName("max_buffer_kib")
    ->Arg(64)
    ->Arg(1024)
    ->Unit(benchmark::kMicrosecond);

// The same with --differential: each case also goes through both engines (differential_check.h).
void BM_DifferentialCase(benchmark::State& state) {
  if (!executorch_available()) {
    state.SkipWithError(executorch_unavailable_reason().c_str());
    return;
  }
  std::map<std::string, uint64_t> known;
  FuzzCaseOptions checks;
  checks.differential = true;
  checks.known_divergences = &known;
  run_cases(state, checks);
}
BENCHMARK(BM_DifferentialCase)
    ->ArgName("max_buffer_kib")
    ->Arg(4)
    ->Arg(64)
    ->Unit(benchmark::kMicrosecond);

// A whole campaign as `devplan fuzz --cases 2000` runs it.
void BM_FuzzCampaign(benchmark::State& state) {
  CampaignOptions options;
  options.max_cases = 2000;
  options.scenario.max_buffer_bytes = uint64_t{64} * 1024;
  for (auto _ : state) {
    CampaignResult r = run_campaign(options, {});
    if (r.failure) state.SkipWithError("the campaign found a failure");
  }
  state.counters["cases_per_second"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * 2000, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_FuzzCampaign)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
}  // namespace devplan::harness

BENCHMARK_MAIN();
