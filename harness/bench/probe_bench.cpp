// probe_bench: `devplan probe` on every committed program (the fixtures this build wrote, and
// ExecuTorch's and its exporter's under fixtures/executorch/), under each engine, the way the
// command runs it (ExecuTorch in a child process), against one `devplan run` of every method
// (one execution, no poison, no re-plan): what the five executions and the no-reuse plan cost.
//
//   build/bin/probe_bench --benchmark_min_time=1
//
// Output: the usual table, then
//   ratio: probe probe/run devplan = R         (and executorch)
//   goal: probe every committed program, both engines = T s (goal < 10 s: ok|MISSED)
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <harness/bench/bench_ratios.h>
#include <harness/commands/run_command.h>
#include <harness/engine/engine.h>
#include <harness/engine/program_image.h>
#include <harness/engine/run_report.h>
#include <harness/services/probe.h>

namespace devplan {
namespace {

struct Committed {
  std::string path;
  std::vector<std::string> data;  // --data files
};

std::vector<Committed> committed_programs() {
  std::vector<Committed> out;
  const std::string exporter = std::string(DEVPLAN_SOURCE_DIR) + "/fixtures/executorch/exporter/";
  for (const std::string& folder :
       {std::string(DEVPLAN_FIXTURE_PROGRAMS_DIR),
        std::string(DEVPLAN_SOURCE_DIR) + "/fixtures/executorch",
        std::string(DEVPLAN_SOURCE_DIR) + "/fixtures/executorch/upstream-1.5.1", exporter}) {
    std::vector<std::string> files;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
      const std::string ext = entry.path().extension().string();
      if (ext == ".pte" || ext == ".bpte") files.push_back(entry.path().string());
    }
    std::sort(files.begin(), files.end());
    for (const std::string& f : files) out.push_back({f, {}});
  }
  for (Committed& c : out) {
    if (c.path == exporter + "wild_external_data.pte") {
      c.data = {exporter + "wild_external_data.ptd"};
    } else if (c.path == exporter + "wild_split_data.pte") {
      c.data = {exporter + "wild_split_data_first.ptd", exporter + "wild_split_data_second.ptd"};
    }
  }
  return out;
}

double g_probe_seconds[2] = {0, 0};  // per engine, per pass over every program

void BM_Probe(benchmark::State& state, harness::RuntimeKind runtime) {
  const std::vector<Committed> programs = committed_programs();
  size_t findings = 0;
  double seconds = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    for (const Committed& c : programs) {
      harness::ProbeOptions options;
      options.runtime = runtime;
      options.data = c.data;
      Result<std::map<std::string, harness::MethodProbeVerdict>> r =
          harness::probe_verdicts(c.path, options);
      if (!r.ok()) continue;  // a program this engine does not load (as the command says)
      for (const auto& [name, verdict] : *r) findings += verdict.findings.size();
    }
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  if (findings > 0) state.SkipWithError("probe found something in a committed program");
  g_probe_seconds[runtime == harness::RuntimeKind::Executorch] = seconds / state.iterations();
  state.counters["programs"] = static_cast<double>(programs.size());
}

// One `devplan run` of every method of every program (in a child under ExecuTorch, as the
// command runs it).
void BM_Run(benchmark::State& state, harness::RuntimeKind runtime) {
  const std::vector<Committed> programs = committed_programs();
  for (auto _ : state) {
    for (const Committed& c : programs) {
      Result<Program> program = harness::load_program_file(c.path);
      if (!program.ok()) continue;
      for (size_t m = 0; m < program->num_methods(); ++m) {
        const std::string name = (*program->method_plan_at(m))->name;
        std::vector<std::string> args = {c.path, "--method", name, "--runtime",
                                         harness::runtime_name(runtime)};
        for (const std::string& d : c.data) args.insert(args.end(), {"--data", d});
        std::ostringstream out, err;
        benchmark::DoNotOptimize(harness::run_command(args, out, err));
      }
    }
  }
}

}  // namespace
}  // namespace devplan

int main(int argc, char** argv) {
  using devplan::harness::RuntimeKind;
  std::vector<RuntimeKind> engines = {RuntimeKind::Devplan};
  if (devplan::harness::executorch_available()) engines.push_back(RuntimeKind::Executorch);
  for (RuntimeKind engine : engines) {
    const std::string name = devplan::harness::runtime_name(engine);
    benchmark::RegisterBenchmark(("probe/probe/" + name).c_str(), devplan::BM_Probe, engine)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("probe/run/" + name).c_str(), devplan::BM_Run, engine)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  const int code =
      devplan::bench::run_with_ratios(argc, argv, {{"probe probe/run", "/probe/", "/run/"}});
  const double total = devplan::g_probe_seconds[0] + devplan::g_probe_seconds[1];
  std::printf(
      "goal: probe every committed program, %s = %.2f s (goal < 10 s: %s)\n",
      engines.size() == 2 ? "both engines" : "devplan engine only (no ExecuTorch in this build)",
      total, total < 10 ? "ok" : "MISSED");
  return code;
}
