// tracking_allocator_bench: TrackingDeviceAllocator allocate/deallocate from 1 to 8 threads at
// once, against a plain DeviceAllocator over aligned_alloc/free (bench::MallocDeviceAllocator,
// harness/bench/malloc_device_allocator.h), each shared by all threads.
//
//   build/bin/tracking_allocator_bench --benchmark_min_time=0.1
//
// One iteration allocates kBatch blocks of kBlockBytes on cuda:(thread % 4) and frees them in
// allocation order; items are allocate+free pairs. Times are wall-clock (UseRealTime), so
// items_per_second is the throughput of all threads together. The tracking allocator keeps its
// defaults (poison fill, quarantine of 1,024 blocks, one mutex); its ledger is reset after each
// run.
//
// Output: the usual table plus, per thread count,
//   ratio: alloc_free tracking/malloc threads:N = R
#include <cstddef>
#include <cstdint>
#include <string>

#include <benchmark/benchmark.h>

#include <harness/bench/bench_ratios.h>
#include <harness/bench/malloc_device_allocator.h>
#include <mocks/tracking_device_allocator.h>
#include <runtime_ext/core/device_allocator.h>

namespace devplan {
namespace {

constexpr int kBatch = 8;
constexpr size_t kBlockBytes = 256;
constexpr int kNumSimulatedDevices = 4;

// Shared by all threads of a run; they live for the whole process.
TrackingDeviceAllocator& tracking_allocator() {
  static TrackingDeviceAllocator* allocator = new TrackingDeviceAllocator(DeviceType::CUDA);
  return *allocator;
}
bench::MallocDeviceAllocator& malloc_allocator() {
  static bench::MallocDeviceAllocator* allocator = new bench::MallocDeviceAllocator();
  return *allocator;
}

void alloc_free_loop(benchmark::State& state, DeviceAllocator& allocator) {
  const DeviceIndex index = static_cast<DeviceIndex>(state.thread_index() % kNumSimulatedDevices);
  void* blocks[kBatch];
  for (auto _ : state) {
    for (int k = 0; k < kBatch; ++k) {
      Result<void*> ptr = allocator.allocate(kBlockBytes, index, kDefaultAlignment);
      if (!ptr.ok()) {
        state.SkipWithError(ptr.error().message().c_str());
        for (int j = 0; j < k; ++j) allocator.deallocate(blocks[j], index);
        return;
      }
      blocks[k] = ptr.value();
    }
    for (void* block : blocks) allocator.deallocate(block, index);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * kBatch);
}

void BM_TrackingAllocFree(benchmark::State& state) {
  TrackingDeviceAllocator& tracking = tracking_allocator();
  alloc_free_loop(state, tracking);
  // Every thread has left the timed loop (Google Benchmark's stop barrier) before this runs.
  if (state.thread_index() == 0) {
    if (tracking.has_leaks() || tracking.has_misuse()) {
      state.SkipWithError(
          ("ledger not clean: " + tracking.leak_report() + tracking.misuse_report()).c_str());
    }
    (void)tracking.reset();
  }
}

void BM_MallocAllocFree(benchmark::State& state) { alloc_free_loop(state, malloc_allocator()); }

void register_benchmarks() {
  for (int threads : {1, 2, 4, 8}) {
    benchmark::RegisterBenchmark("alloc_free/tracking", BM_TrackingAllocFree)
        ->Threads(threads)
        ->UseRealTime()
        ->Unit(benchmark::kNanosecond);
    benchmark::RegisterBenchmark("alloc_free/malloc", BM_MallocAllocFree)
        ->Threads(threads)
        ->UseRealTime()
        ->Unit(benchmark::kNanosecond);
  }
}

}  // namespace
}  // namespace devplan

int main(int argc, char** argv) {
  devplan::register_benchmarks();
  return devplan::bench::run_with_ratios(argc, argv,
                                         {{"alloc_free tracking/malloc", "/tracking", "/malloc"}});
}
