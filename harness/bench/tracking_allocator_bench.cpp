// tracking_allocator_bench: TrackingDeviceAllocator allocate/deallocate from 1 to 8 threads at
// once, against a plain DeviceAllocator over aligned_alloc/free (bench::MallocDeviceAllocator,
// harness/bench/malloc_device_allocator.h), each shared by all threads.
//
//   build/bin/tracking_allocator_bench --benchmark_min_time=0.1
//
// One iteration allocates kBatch blocks of kBlockBytes on cuda:(thread % 8) (one device per thread:
// each device is a shard of its own) and frees them in allocation order; items are allocate+free
// pairs. Times are wall-clock (UseRealTime), so items_per_second is the throughput of all threads
// together. Configurations:
//   tracking          TrackingDeviceAllocator with its defaults (poison fills, quarantine of 1,024
//                     blocks per device, the fused path: FusedTrackingPath), one shard per device;
//   tracking_lean     the same with set_fill_patterns(false) and set_quarantine_limits(0, 0): what
//                     the two optional detections cost is the difference to "tracking";
//   tracking_layered  "tracking" with set_fused_path(false), every call through the layers one
//                     by one: what the fused path saves is the difference (threads:1 only);
//   host              BlockStoreDeviceAllocator alone (its defaults) behind one mutex: a block
//                     store's memory, fills, quarantine and map, without a ledger (threads:1 only);
//   malloc            bench::MallocDeviceAllocator, the baseline.
// The tracking allocators' ledgers are reset after each run.
//
// Output: the usual table plus
//   ratio: alloc_free tracking/malloc threads:N = R (goal <= 3.00: ok|MISSED)
//   ratio: alloc_free tracking_lean/malloc threads:N = R (goal <= 3.00: ok|MISSED)
//   ratio: alloc_free tracking_layered/malloc threads:1 = R
//   ratio: alloc_free host/malloc threads:1 = R
//   ratio: alloc_free throughput threads:N/threads:1 tracking = R   (goal >= 4 at 8 threads
//     on 8 cores; a machine with fewer cores caps it at about its core count)
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>

#include <benchmark/benchmark.h>

#include <harness/bench/bench_ratios.h>
#include <harness/bench/malloc_device_allocator.h>
#include <mocks/block_store_device_allocator.h>
#include <mocks/tracking_device_allocator.h>
#include <runtime_ext/core/device_allocator.h>

namespace devplan {
namespace {

constexpr int kBatch = 8;
constexpr size_t kBlockBytes = 256;
constexpr int kNumSimulatedDevices = 8;

// Shared by all threads of a run; they live for the whole process.
TrackingDeviceAllocator& tracking_allocator() {
  static TrackingDeviceAllocator* allocator = new TrackingDeviceAllocator(DeviceType::CUDA);
  return *allocator;
}
// Every call through the layers one by one.
TrackingDeviceAllocator& layered_tracking_allocator() {
  static TrackingDeviceAllocator* allocator = [] {
    auto* layered = new TrackingDeviceAllocator(DeviceType::CUDA);
    layered->set_fused_path(false);
    return layered;
  }();
  return *allocator;
}
// Without the fill patterns and the quarantine.
TrackingDeviceAllocator& lean_tracking_allocator() {
  static TrackingDeviceAllocator* allocator = [] {
    auto* lean = new TrackingDeviceAllocator(DeviceType::CUDA);
    lean->set_fill_patterns(false);
    lean->set_quarantine_limits(0, 0);
    return lean;
  }();
  return *allocator;
}

// A block store alone (BlockStoreDeviceAllocator), behind one lock as a tracking shard is.
class LockedHostAllocator : public DeviceAllocator {
 public:
  Result<void*> allocate(size_t nbytes, DeviceIndex index, size_t alignment) override {
    std::lock_guard<std::mutex> lock(mu_);
    return host_.allocate(nbytes, index, alignment);
  }
  void deallocate(void* ptr, DeviceIndex index) override {
    std::lock_guard<std::mutex> lock(mu_);
    host_.deallocate(ptr, index);
  }
  Error copy_host_to_device(void* dst, const void* src, size_t n, DeviceIndex index) override {
    std::lock_guard<std::mutex> lock(mu_);
    return host_.copy_host_to_device(dst, src, n, index);
  }
  Error copy_device_to_host(void* dst, const void* src, size_t n, DeviceIndex index) override {
    std::lock_guard<std::mutex> lock(mu_);
    return host_.copy_device_to_host(dst, src, n, index);
  }
  DeviceType device_type() const override { return DeviceType::CUDA; }

 private:
  std::mutex mu_;
  BlockStoreDeviceAllocator host_;
};
LockedHostAllocator& host_allocator() {
  static LockedHostAllocator* allocator = new LockedHostAllocator();
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

void tracking_alloc_free(benchmark::State& state, TrackingDeviceAllocator& tracking) {
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

void BM_TrackingAllocFree(benchmark::State& state) {
  tracking_alloc_free(state, tracking_allocator());
}
void BM_LeanTrackingAllocFree(benchmark::State& state) {
  tracking_alloc_free(state, lean_tracking_allocator());
}
void BM_LayeredTrackingAllocFree(benchmark::State& state) {
  tracking_alloc_free(state, layered_tracking_allocator());
}
void BM_HostAllocFree(benchmark::State& state) { alloc_free_loop(state, host_allocator()); }
void BM_MallocAllocFree(benchmark::State& state) { alloc_free_loop(state, malloc_allocator()); }

void register_benchmarks() {
  for (int threads : {1, 2, 4, 8}) {
    benchmark::RegisterBenchmark("alloc_free/tracking", BM_TrackingAllocFree)
        ->Threads(threads)
        ->UseRealTime()
        ->Unit(benchmark::kNanosecond);
    benchmark::RegisterBenchmark("alloc_free/tracking_lean", BM_LeanTrackingAllocFree)
        ->Threads(threads)
        ->UseRealTime()
        ->Unit(benchmark::kNanosecond);
    if (threads == 1) {
      benchmark::RegisterBenchmark("alloc_free/tracking_layered", BM_LayeredTrackingAllocFree)
          ->Threads(threads)
          ->UseRealTime()
          ->Unit(benchmark::kNanosecond);
      benchmark::RegisterBenchmark("alloc_free/host", BM_HostAllocFree)
          ->Threads(threads)
          ->UseRealTime()
          ->Unit(benchmark::kNanosecond);
    }
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
  // Throughput ratios: time per item at threads:1 over time per item at threads:N (the times are
  // wall-clock per item of all threads together).
  return devplan::bench::run_with_ratios(
      argc, argv,
      {{"alloc_free tracking/malloc", "/tracking/", "/malloc/", 3.0},
       {"alloc_free tracking_lean/malloc", "/tracking_lean/", "/malloc/", 3.0},
       {"alloc_free tracking_layered/malloc", "/tracking_layered/", "/malloc/"},
       {"alloc_free host/malloc", "/host/", "/malloc/"},
       {"alloc_free throughput threads:2/threads:1", "/threads:1", "/threads:2", 0,
        "alloc_free/tracking/"},
       {"alloc_free throughput threads:4/threads:1", "/threads:1", "/threads:4", 0,
        "alloc_free/tracking/"},
       {"alloc_free throughput threads:8/threads:1", "/threads:1", "/threads:8", 0,
        "alloc_free/tracking/"},
       {"alloc_free throughput threads:8/threads:1", "/threads:1", "/threads:8", 0,
        "alloc_free/tracking_lean/"}});
}
