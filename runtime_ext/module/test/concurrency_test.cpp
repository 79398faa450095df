// Modules used from many threads at once: each thread loads, executes and unloads the methods
// of its own Modules through the one global allocator registry, one TrackingDeviceAllocator for
// CUDA (every index) and one SimulatedDeviceBackend; and loads that race with a scoped swap of
// the CUDA allocator. Also run under ThreadSanitizer (scripts/sanitize.sh tsan).
#include "module_test_support.h"

#include <atomic>
#include <chrono>
#include <map>
#include <sstream>
#include <thread>
#include <vector>

namespace devplan {
namespace {

using testing::ModuleTestBase;
using ConcurrencyTest = ModuleTestBase;

constexpr int kThreads = 8;
constexpr int kCyclesPerThread = 1000;

// Device allocations one load of every method of `bytes` makes, per CUDA index, from the
// program's layout: one per non-empty buffer that is not on the CPU.
std::map<DeviceIndex, uint64_t> device_allocations_per_cycle(const std::vector<uint8_t>& bytes) {
  std::map<DeviceIndex, uint64_t> counts;
  Result<Program> program = Program::load_from_bytes(bytes);
  EXPECT_TRUE(program.ok());
  if (!program.ok()) return counts;
  for (size_t m = 0; m < program->num_methods(); ++m) {
    Result<MethodMeta> meta = program->method_meta(*program->method_name(m));
    EXPECT_TRUE(meta.ok());
    if (!meta.ok()) continue;
    for (size_t i = 0; i < meta->num_memory_planned_buffers(); ++i) {
      const Device device = *meta->memory_planned_buffer_device(i);
      if (!device.is_cpu() && *meta->memory_planned_buffer_size(i) > 0) ++counts[device.index];
    }
  }
  return counts;
}

// Loads every method of `module`, sets every input to ones, executes, copies every output to
// the host and unloads. Returns the outputs by method and output index, or an error message.
Result<std::vector<std::vector<float>>> run_cycle(Module& module,
                                                  const std::vector<std::string>& methods) {
  std::vector<std::vector<float>> outputs;
  for (const std::string& name : methods) {
    DEVPLAN_RETURN_IF_ERROR(module.load_method(name));
    DEVPLAN_ASSIGN_OR_RETURN(Method * method, module.method(name));
    std::vector<std::vector<float>> inputs(method->num_inputs());
    for (size_t i = 0; i < method->num_inputs(); ++i) {
      const Tensor& in = method->value(static_cast<size_t>(method->plan().inputs[i])).tensor;
      inputs[i].assign(in.nbytes / sizeof(float), 1.0f);
      Tensor host;
      host.dtype = in.dtype;
      host.sizes = in.sizes;
      host.data = inputs[i].data();
      host.nbytes = in.nbytes;
      DEVPLAN_RETURN_IF_ERROR(method->set_input(i, EValue::from_tensor(host)));
    }
    DEVPLAN_RETURN_IF_ERROR(method->execute());
    for (size_t i = 0; i < method->num_outputs(); ++i) {
      DEVPLAN_ASSIGN_OR_RETURN(const EValue* out, method->get_output(i));
      std::vector<float> values(out->tensor.nbytes / sizeof(float));
      DEVPLAN_RETURN_IF_ERROR(method->copy_output_to_host(i, values.data(), out->tensor.nbytes));
      outputs.push_back(std::move(values));
    }
    DEVPLAN_RETURN_IF_ERROR(module.unload_method(name));
  }
  return outputs;
}

std::vector<uint8_t> fixture_bytes(size_t i) {
  return all_fixture_programs()[i % all_fixture_programs().size()].bytes();
}

TEST_F(ConcurrencyTest, ThreadsCycleTheirOwnModulesThroughOneAllocator) {
  // Thread t runs fixture t % 7 (so cpu_add twice); the expected numbers come from the layouts.
  std::map<DeviceIndex, uint64_t> expected;
  std::vector<std::vector<std::vector<float>>> reference(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    for (const auto& [index, count] : device_allocations_per_cycle(fixture_bytes(t))) {
      expected[index] += count * kCyclesPerThread;
    }
    Module module(fixture_bytes(t));
    Result<std::vector<std::vector<float>>> outputs = run_cycle(module, *module.method_names());
    ASSERT_TRUE(outputs.ok()) << all_fixture_programs()[t % 7].name << ": " << outputs.error();
    reference[t] = *outputs;
  }
  // The layouts of fixtures/generator/README.md: per cycle of all 8 threads, cuda:0 gets one
  // allocation from each of device_add_cuda0, multi_device, two_methods, device_only and
  // zero_size_device_buffer, cuda:1 one from multi_device.
  ASSERT_EQ(expected.size(), 2u);
  EXPECT_EQ(expected[0], 5u * kCyclesPerThread);
  EXPECT_EQ(expected[1], 1u * kCyclesPerThread);
  ASSERT_TRUE(tracking().reset().ok());  // forget the reference runs

  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &reference, &failures] {
      Module module(fixture_bytes(t));
      Result<std::vector<std::string>> names = module.method_names();
      if (!names.ok()) {
        failures[t] = names.error().to_string();
        return;
      }
      for (int cycle = 0; cycle < kCyclesPerThread; ++cycle) {
        Result<std::vector<std::vector<float>>> outputs = run_cycle(module, *names);
        if (!outputs.ok()) {
          failures[t] = "cycle " + std::to_string(cycle) + ": " + outputs.error().to_string();
          return;
        }
        if (*outputs != reference[t]) {
          failures[t] = "cycle " + std::to_string(cycle) + ": outputs differ from the reference";
          return;
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], "") << "thread " << t;

  EXPECT_EQ(tracking().live_count(), 0u) << tracking().leak_report();
  EXPECT_FALSE(tracking().has_misuse()) << tracking().misuse_report();
  EXPECT_TRUE(tracking().failed_allocations().empty());
  EXPECT_EQ(tracking().ledger().size(), expected[0] + expected[1]);
  EXPECT_EQ(tracking().allocate_calls(), expected[0] + expected[1]);
  for (DeviceIndex index : {0, 1}) {
    const DeviceAllocationStats stats = tracking().stats(index);
    EXPECT_EQ(stats.total_allocations, expected[index]) << "cuda:" << int(index);
    EXPECT_EQ(stats.frees, expected[index]) << "cuda:" << int(index);
    EXPECT_EQ(stats.current_allocations, 0u) << "cuda:" << int(index);
    EXPECT_EQ(stats.current_bytes, 0u) << "cuda:" << int(index);
    EXPECT_EQ(stats.total_bytes, 48u * expected[index]) << "cuda:" << int(index);  // 48 B each
    EXPECT_GE(stats.peak_allocations, 1u) << "cuda:" << int(index);
    EXPECT_LE(stats.peak_allocations, static_cast<uint64_t>(kThreads)) << "cuda:" << int(index);
  }
  EXPECT_EQ(tracking().stats(2).total_allocations, 0u);
  // Every device add ran on the one shared backend: device_add_cuda0, two_methods,
  // device_only and zero_size_device_buffer once per cycle, multi_device twice.
  EXPECT_EQ(add_backend_.executions(), 6u * kCyclesPerThread + 6u);  // + the reference runs
}

TEST_F(ConcurrencyTest, UnloadAfterASwapFreesWithTheAllocatorThatAllocated) {
  TrackingDeviceAllocator other(DeviceType::CUDA);
  auto module = fixture_module("device_add_cuda0");
  {
    ScopedDeviceAllocator swap(&other);
    EXPECT_EQ(swap.previous(), &tracking());
    ASSERT_TRUE(module->load_method("forward").ok());
  }
  ASSERT_EQ(get_device_allocator(DeviceType::CUDA), &tracking());
  ASSERT_TRUE(module->unload_method("forward").ok());
  EXPECT_EQ(other.stats(0).total_allocations, 1u);
  EXPECT_EQ(other.stats(0).frees, 1u);
  EXPECT_EQ(other.live_count(), 0u);
  EXPECT_FALSE(other.has_misuse()) << other.misuse_report();
  EXPECT_EQ(tracking().allocate_calls(), 0u);
  EXPECT_EQ(tracking().stats(0).frees, 0u);
}

TEST_F(ConcurrencyTest, LoadsRacingAScopedSwapFreeWithTheAllocatorThatAllocated) {
  // Both allocators outlive every thread (the registry's contract for swaps).
  TrackingDeviceAllocator other(DeviceType::CUDA);
  constexpr int kWorkers = 4;
  constexpr int kSwaps = 40;
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> loads{0};
  std::vector<std::string> failures(kWorkers);
  std::vector<std::thread> workers;
  for (int w = 0; w < kWorkers; ++w) {
    workers.emplace_back([w, &stop, &loads, &failures] {
      // Workers 0 and 2 load device_add_cuda0 (cuda:0), 1 and 3 multi_device (cuda:0, cuda:1).
      Module module(fixture_bytes(w % 2 == 0 ? 1 : 2));
      while (!stop.load()) {
        Error e = module.load_method("forward");
        if (e.ok()) e = module.unload_method("forward");
        if (!e.ok()) {
          failures[w] = e.to_string();
          return;
        }
        loads.fetch_add(w % 2 == 0 ? 1 : 2);
      }
    });
  }

  // Each round installs `other` until some worker allocated from it, then restores `tracking()`
  // until some worker allocated from that: every round has loads on both sides of a swap.
  const auto wait_for_more = [&stop](const TrackingDeviceAllocator& a, uint64_t before) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (a.allocate_calls() <= before && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
    return a.allocate_calls() > before;
  };
  bool progressed = true;
  for (int round = 0; round < kSwaps && progressed; ++round) {
    const uint64_t other_before = other.allocate_calls();
    {
      ScopedDeviceAllocator swap(&other);
      EXPECT_EQ(swap.previous(), &tracking());
      progressed = wait_for_more(other, other_before);
    }
    progressed = progressed && wait_for_more(tracking(), tracking().allocate_calls());
  }
  stop = true;
  for (std::thread& worker : workers) worker.join();
  EXPECT_TRUE(progressed) << "workers stopped allocating";
  for (int w = 0; w < kWorkers; ++w) EXPECT_EQ(failures[w], "") << "worker " << w;
  EXPECT_EQ(get_device_allocator(DeviceType::CUDA), &tracking());

  for (const TrackingDeviceAllocator* a : {&tracking(), &other}) {
    const char* which = a == &other ? "other" : "tracking";
    EXPECT_EQ(a->live_count(), 0u) << which << "\n" << a->leak_report();
    EXPECT_FALSE(a->has_misuse()) << which << "\n" << a->misuse_report();
    EXPECT_GE(a->allocate_calls(), static_cast<uint64_t>(kSwaps)) << which;
    for (DeviceIndex index : {0, 1}) {
      EXPECT_EQ(a->stats(index).frees, a->stats(index).total_allocations)
          << which << " cuda:" << int(index);
    }
  }
  EXPECT_EQ(tracking().allocate_calls() + other.allocate_calls(), loads.load());
}

}  // namespace
}  // namespace devplan
