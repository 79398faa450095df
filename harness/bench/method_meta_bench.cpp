// method_meta_bench: MethodMeta::memory_planned_buffer_device(i) with a sparse device list of
// 16 to 4,096 entries. The lookup must be O(1): the time per lookup stays flat as the list
// grows.
//
//   build/bin/method_meta_bench --benchmark_min_time=0.1
//
// A program with E entries has 2E planned buffers; every odd buffer is on cuda:(k % 4), so the
// file's non_const_buffer_device list holds E entries and the even buffers fall back to cpu:0.
// One iteration makes kLookupsPerIteration lookups, cycling over every buffer index, so
// iteration times compare directly across sizes; the counter per_lookup is the time of one.
//
// For contrast, method_meta/linear_scan/... looks the device up the way ExecuTorch's
// MethodMeta does: a scan of the sparse list, first match wins (O(E) per lookup).
//
// Output: the usual table plus
//   ratio: method_meta lookup 4096/16 entries o1 = R (goal <= 1.50: ok|MISSED)
//   ratio: method_meta linear scan 4096/16 entries linear_scan = R
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <harness/bench/bench_ratios.h>
#include <runtime_ext/program/method_meta.h>
#include <runtime_ext/program/program.h>
#include <runtime_ext/writer/program_builder.h>

namespace devplan {
namespace {

constexpr int kLookupsPerIteration = 8192;
const int kEntryCounts[] = {16, 64, 256, 1024, 4096};

Result<Program> make_program(int entries) {
  ProgramBuilder builder;
  MethodBuilder& m = builder.add_method("forward");
  for (int b = 0; b < 2 * entries; ++b) {
    const Device device =
        b % 2 == 1 ? Device::cuda(static_cast<DeviceIndex>((b / 2) % 4)) : Device::cpu();
    m.add_buffer(64, device);
  }
  const std::vector<uint8_t> bytes = builder.build();
  return Program::load_from_bytes(Span<const uint8_t>(bytes.data(), bytes.size()));
}

void set_lookup_counters(benchmark::State& state) {
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * kLookupsPerIteration);
  // Seconds per lookup (printed as e.g. "2.1ns").
  state.counters["per_lookup"] = benchmark::Counter(
      static_cast<double>(kLookupsPerIteration),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_MethodMetaDevice(benchmark::State& state, int entries) {
  Result<Program> program = make_program(entries);
  if (!program.ok()) {
    state.SkipWithError(("load: " + program.error().message()).c_str());
    return;
  }
  Result<MethodMeta> meta = program->method_meta("forward");
  if (!meta.ok() || meta->num_memory_planned_buffers() != 2 * static_cast<size_t>(entries)) {
    state.SkipWithError("method_meta: unexpected buffer count");
    return;
  }
  const size_t n = meta->num_memory_planned_buffers();
  size_t i = 0;
  for (auto _ : state) {
    for (int k = 0; k < kLookupsPerIteration; ++k) {
      Result<Device> device = meta->memory_planned_buffer_device(i);
      benchmark::DoNotOptimize(device);
      if (++i == n) i = 0;
    }
  }
  // The lookups must have seen the layout the program was built with.
  if (meta->memory_planned_buffer_device(n - 1).value() !=
      Device::cuda(static_cast<DeviceIndex>((entries - 1) % 4))) {
    state.SkipWithError("memory_planned_buffer_device returned the wrong device");
  }
  set_lookup_counters(state);
}

// ExecuTorch's lookup: scan the sparse (buffer_idx, device) list, first match wins.
struct SparseEntry {
  int32_t buffer_idx;  // file index: user index + 1
  Device device;
};

Device linear_scan(const std::vector<SparseEntry>& entries, size_t index) {
  for (const SparseEntry& entry : entries) {
    if (entry.buffer_idx == static_cast<int32_t>(index + 1)) return entry.device;
  }
  return Device::cpu();
}

void BM_LinearScanDevice(benchmark::State& state, int entries) {
  Result<Program> program = make_program(entries);
  if (!program.ok()) {
    state.SkipWithError(("load: " + program.error().message()).c_str());
    return;
  }
  Result<MethodMeta> meta = program->method_meta("forward");
  if (!meta.ok()) {
    state.SkipWithError("method_meta failed");
    return;
  }
  std::vector<SparseEntry> sparse;
  const size_t n = meta->num_memory_planned_buffers();
  for (size_t b = 0; b < n; ++b) {
    const Device device = meta->memory_planned_buffer_device(b).value();
    if (!device.is_cpu()) sparse.push_back({static_cast<int32_t>(b + 1), device});
  }
  if (sparse.size() != static_cast<size_t>(entries)) {
    state.SkipWithError("unexpected number of sparse entries");
    return;
  }
  size_t i = 0;
  for (auto _ : state) {
    for (int k = 0; k < kLookupsPerIteration; ++k) {
      Device device = linear_scan(sparse, i);
      benchmark::DoNotOptimize(device);
      if (++i == n) i = 0;
    }
  }
  set_lookup_counters(state);
}

void register_benchmarks() {
  for (int entries : kEntryCounts) {
    const std::string suffix = "/entries:" + std::to_string(entries);
    benchmark::RegisterBenchmark(("method_meta/o1" + suffix).c_str(), BM_MethodMetaDevice, entries)
        ->Unit(benchmark::kMicrosecond);
  }
  for (int entries : kEntryCounts) {
    const std::string suffix = "/entries:" + std::to_string(entries);
    benchmark::RegisterBenchmark(("method_meta/linear_scan" + suffix).c_str(), BM_LinearScanDevice,
                                 entries)
        ->Unit(benchmark::kMicrosecond);
  }
}

}  // namespace
}  // namespace devplan

int main(int argc, char** argv) {
  devplan::register_benchmarks();
  return devplan::bench::run_with_ratios(
      argc, argv,
      {{"method_meta lookup 4096/16 entries", "/entries:4096", "/entries:16", 1.5,
        "method_meta/o1/"},
       {"method_meta linear scan 4096/16 entries", "/entries:4096", "/entries:16", 0,
        "method_meta/linear_scan/"}});
}
