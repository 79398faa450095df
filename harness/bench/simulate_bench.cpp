// simulate_bench: `devplan simulate` on the model-scale fixture (model_scale_64gib: four 16 GiB
// buffers on cuda:0-3, 4,137 planned tensors), the way the command runs it: the program file is
// mapped (ProgramImage::map), loaded and unloaded on unbacked simulated devices, and the ledger
// collected. For scale, the same on device_add_cuda0 (one 48-byte device buffer).
//
//   build/bin/simulate_bench --benchmark_min_time=0.5
//
// Output: the usual table (counter peak_rss_MiB: the process's peak resident set so far, from
// getrusage, the bench's own memory included), then
//   goal: simulate model_scale_64gib = T ms per run (goal < 1000 ms: ok|MISSED), peak RSS
//         R MiB (goal < 200 MB: ok|MISSED)
//   ratio: simulate model_scale/device_add = R
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <fixtures/generator/fixture_programs.h>
#include <fixtures/generator/model_scale_program.h>
#include <harness/bench/bench_ratios.h>
#include <harness/engine/program_image.h>
#include <harness/services/simulation.h>

namespace devplan {
namespace {

double peak_rss_mib() {
  struct rusage usage {};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

// The program written to a file, removed at exit, as the command would read it.
std::string program_file(const std::string& name, const std::vector<uint8_t>& bytes) {
  const std::string path =
      "/tmp/devplan-simulate-bench-" + std::to_string(::getpid()) + "-" + name + ".pte";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f != nullptr) {
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
  }
  static std::vector<std::string> files;
  if (files.empty()) {
    std::atexit([] {
      for (const std::string& file : files) std::remove(file.c_str());
    });
  }
  files.push_back(path);
  return path;
}

double g_model_scale_seconds = 0;  // per run, from the last model_scale benchmark

void simulate_file(benchmark::State& state, const std::string& path, size_t expected_allocations) {
  harness::SimulationOptions options;  // the command's defaults: unbacked devices
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    Result<harness::ProgramImage> image = harness::ProgramImage::map(path);
    if (!image.ok()) {
      state.SkipWithError(image.error().message().c_str());
      return;
    }
    Result<harness::SimulationResult> result = harness::simulate_program(*image, options);
    if (!result.ok() || !result->all_loaded() || result->has_findings() ||
        result->allocations.size() != expected_allocations) {
      state.SkipWithError("the simulation did not load cleanly");
      return;
    }
    benchmark::DoNotOptimize(result->allocations.data());
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (expected_allocations == 4) g_model_scale_seconds = seconds / state.iterations();
  state.counters["peak_rss_MiB"] = peak_rss_mib();
}

void BM_SimulateModelScale(benchmark::State& state) {
  static const std::string path =
      program_file("model_scale", model_scale_program_builder().build());
  simulate_file(state, path, 4);
}

void BM_SimulateDeviceAdd(benchmark::State& state) {
  static const std::string path = program_file("device_add", make_device_add_cuda0_program());
  simulate_file(state, path, 1);
}

}  // namespace
}  // namespace devplan

int main(int argc, char** argv) {
  benchmark::RegisterBenchmark("simulate/model_scale", devplan::BM_SimulateModelScale)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  benchmark::RegisterBenchmark("simulate/device_add", devplan::BM_SimulateDeviceAdd)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  const int code = devplan::bench::run_with_ratios(
      argc, argv, {{"simulate model_scale/device_add", "/model_scale", "/device_add"}});
  if (devplan::g_model_scale_seconds > 0) {
    const double ms = devplan::g_model_scale_seconds * 1000;
    const double rss = devplan::peak_rss_mib();
    std::printf(
        "goal: simulate model_scale_64gib = %.1f ms per run (goal < 1000 ms: %s), peak RSS "
        "%.1f MiB (goal < 200 MB: %s)\n",
        ms, ms < 1000 ? "ok" : "MISSED", rss, rss * 1.048576 < 200 ? "ok" : "MISSED");
  }
  return code;
}
