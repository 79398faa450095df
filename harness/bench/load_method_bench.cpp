// load_method_bench: the cost of Module::load_method + unload_method for programs with 1 to
// 4,096 planned buffers and up to 100,000 planned tensors, CPU-only versus device-planned with
// the same layout.
//
//   build/bin/load_method_bench --benchmark_min_time=0.1
//
// Each program has one method "forward" with B buffers and T Float[4] tensors (16 bytes each);
// tensor t lives in buffer t % B at offset 16 * (t / B), every buffer is as large as its tensors
// need (16 bytes when it holds none). The CPU program keeps every buffer on cpu:0; the device
// program puts buffer i on cuda:(i % 4) (its tensors too). Three variants per layout:
//   cpu           the CPU program;
//   device        the device program with CUDA served by a TrackingDeviceAllocator: the device
//                 path runs DeviceMemoryBuffer, the registry and the tracking allocator's
//                 ledger, poison fill and quarantine;
//   device_plain  the device program with CUDA served by bench::MallocDeviceAllocator: the
//                 runtime's own device path without the tracking allocator's bookkeeping, to
//                 tell the two costs apart.
// The program is loaded once; one iteration is load_method + unload_method. The tracking
// allocator is reset (outside the timing) once it has served kResetAfterAllocations (16,384)
// allocations, so its history stays as short as a per-test allocator's (LeakCheckedTest makes
// a fresh one per test): its ledger and its map of freed addresses grow with history, and so
// does the cost of each call.
//
// Output: the usual table plus, for each size,
//   ratio: load_method device/cpu buffers:B/tensors:T = R (goal <= 1.20: ok|MISSED)
//   ratio: load_method device_plain/cpu buffers:B/tensors:T = R (goal <= 1.20: ok|MISSED)
#include <cstdint>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <harness/bench/bench_ratios.h>
#include <harness/bench/malloc_device_allocator.h>
#include <mocks/tracking_device_allocator.h>
#include <runtime_ext/core/device_allocator_registry.h>
#include <runtime_ext/module/module.h>
#include <runtime_ext/writer/program_builder.h>

namespace devplan {
namespace {

constexpr int kNumSimulatedDevices = 4;
constexpr uint64_t kTensorBytes = 16;  // Float[4]
constexpr uint64_t kResetAfterAllocations = uint64_t{1} << 14;

struct Layout {
  int buffers;
  int tensors;
};

// 1 to 4,096 buffers, up to 100,000 tensors.
const Layout kLayouts[] = {
    {1, 1}, {1, 1000}, {16, 1000}, {256, 10000}, {1024, 10000}, {4096, 4096}, {4096, 100000},
};

std::vector<uint8_t> make_program(const Layout& layout, bool on_device) {
  auto device_of = [&](int buffer) {
    return on_device ? Device::cuda(static_cast<DeviceIndex>(buffer % kNumSimulatedDevices))
                     : Device::cpu();
  };
  ProgramBuilder builder;
  MethodBuilder& m = builder.add_method("forward");
  for (int b = 0; b < layout.buffers; ++b) {
    // Buffer b holds tensors b, b + B, b + 2B, ...
    const int held = layout.tensors / layout.buffers + (b < layout.tensors % layout.buffers);
    const uint64_t size = held > 0 ? kTensorBytes * static_cast<uint64_t>(held) : kTensorBytes;
    m.add_buffer(size, device_of(b));
  }
  for (int t = 0; t < layout.tensors; ++t) {
    const int b = t % layout.buffers;
    m.add_planned_tensor(TensorSpec::of(ScalarType::Float, {4}, device_of(b)),
                         static_cast<uint32_t>(b),
                         kTensorBytes * static_cast<uint64_t>(t / layout.buffers));
  }
  return builder.build();
}

// Which program and which CUDA allocator a run uses.
enum class Variant {
  Cpu,          // every buffer on cpu:0 (the TrackingDeviceAllocator is registered, unused)
  Device,       // buffers on cuda:0..3, served by the TrackingDeviceAllocator
  DevicePlain,  // buffers on cuda:0..3, served by bench::MallocDeviceAllocator
};

const char* variant_name(Variant variant) {
  switch (variant) {
    case Variant::Cpu:
      return "cpu";
    case Variant::Device:
      return "device";
    case Variant::DevicePlain:
      return "device_plain";
  }
  return "?";
}

void BM_LoadMethod(benchmark::State& state, Layout layout, Variant variant) {
  TrackingDeviceAllocator tracking(DeviceType::CUDA);
  bench::MallocDeviceAllocator plain(DeviceType::CUDA);
  ScopedDeviceAllocator scoped(variant == Variant::DevicePlain
                                   ? static_cast<DeviceAllocator*>(&plain)
                                   : static_cast<DeviceAllocator*>(&tracking));
  Module module(make_program(layout, variant != Variant::Cpu));
  if (Error e = module.load(); !e.ok()) {
    state.SkipWithError(("load: " + e.message()).c_str());
    return;
  }
  // One untimed round trip proves the program loads and warms the allocators.
  if (Error e = module.load_method("forward"); !e.ok()) {
    state.SkipWithError(("load_method: " + e.message()).c_str());
    return;
  }
  (void)module.unload_method("forward");

  for (auto _ : state) {
    Error loaded = module.load_method("forward");
    Error unloaded = module.unload_method("forward");
    if (!loaded.ok() || !unloaded.ok()) {
      state.SkipWithError((loaded.ok() ? unloaded : loaded).message().c_str());
      break;
    }
    if (tracking.allocate_calls() > kResetAfterAllocations) {
      state.PauseTiming();
      (void)tracking.reset();
      state.ResumeTiming();
    }
  }
  if (tracking.live_count() != 0 || tracking.has_misuse()) {
    state.SkipWithError(
        ("device ledger not clean: " + tracking.leak_report() + tracking.misuse_report()).c_str());
  }
}

void register_benchmarks() {
  for (const Layout& layout : kLayouts) {
    for (Variant variant : {Variant::Cpu, Variant::Device, Variant::DevicePlain}) {
      const std::string name = std::string("load_method/") + variant_name(variant) +
                               "/buffers:" + std::to_string(layout.buffers) +
                               "/tensors:" + std::to_string(layout.tensors);
      benchmark::RegisterBenchmark(name.c_str(), BM_LoadMethod, layout, variant)
          ->Unit(benchmark::kMicrosecond);
    }
  }
}

}  // namespace
}  // namespace devplan

int main(int argc, char** argv) {
  devplan::register_benchmarks();
  return devplan::bench::run_with_ratios(
      argc, argv,
      {{"load_method device/cpu", "/device/", "/cpu/", 1.2},
       {"load_method device_plain/cpu", "/device_plain/", "/cpu/", 1.2}});
}
