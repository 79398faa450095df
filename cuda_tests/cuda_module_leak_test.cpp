// Module on real GPUs, leak regression: a thousand load/unload cycles of device_add_cuda0 leave
// device memory where it was (cudaMemGetInfo within kFreeMemoryTolerance) and no allocation
// live, with exactly one cudaMalloc'd buffer per cycle.
#include <fixtures/generator/fixture_programs.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "module_gpu_test.h"

namespace devplan::cuda_testing {
namespace {

constexpr int kCycles = 1000;

class CudaModuleLeakTest : public ModuleGpuTest {};

TEST_F(CudaModuleLeakTest, ThousandLoadUnloadCyclesKeepDeviceMemoryStable) {
  Module module(make_device_add_cuda0_program(), options());
  for (int i = 0; i < 10; ++i) {  // warm-up
    ASSERT_TRUE(module.load_method("forward").ok());
    ASSERT_TRUE(module.unload_method("forward").ok());
  }
  const std::vector<size_t> before = free_memory();
  const uint64_t successes_before = counting_.successful_allocations();
  const uint64_t frees_before = counting_.frees();
  size_t peak_live = 0;
  for (int i = 0; i < kCycles; ++i) {
    const Error loaded = module.load_method("forward");
    ASSERT_TRUE(loaded.ok()) << "cycle " << i << ": " << loaded;
    Result<const PlannedMemory*> memory = module.planned_memory("forward");
    ASSERT_TRUE(memory.ok()) << "cycle " << i << ": " << memory.error();
    ASSERT_NE((*memory)->buffer(1).data(), nullptr) << "cycle " << i;
    peak_live = std::max(peak_live, counting_.live_allocations());
    const Error unloaded = module.unload_method("forward");
    ASSERT_TRUE(unloaded.ok()) << "cycle " << i << ": " << unloaded;
    ASSERT_EQ(counting_.live_allocations(), 0u) << "cycle " << i;
  }
  EXPECT_EQ(peak_live, 1u);
  EXPECT_EQ(counting_.successful_allocations() - successes_before, uint64_t{kCycles});
  EXPECT_EQ(counting_.frees() - frees_before, uint64_t{kCycles});
  EXPECT_EQ(counting_.live_allocations(), 0u);
  EXPECT_TRUE(free_memory_near(before));
  EXPECT_EQ(counting_.misuse_count(), 0u) << counting_.misuse_report();
  EXPECT_EQ(cuda_.deallocation_errors(), 0u) << cuda_.last_deallocation_error();
}

TEST_F(CudaModuleLeakTest, HundredModulesLoadedExecutedAndDestroyedKeepDeviceMemoryStable) {
  // The whole life of a Module, execution included, a hundred times.
  std::vector<float> a = {1.0f, 2.0f, 3.0f, 4.0f}, b = {0.5f, 0.25f, 0.125f, 0.0625f};
  auto cycle = [&](int i) {
    Module module(make_device_add_cuda0_program(), options());
    Result<std::vector<EValue>> out =
        module.execute("forward", {host_float_2x2(a), host_float_2x2(b)});
    ASSERT_TRUE(out.ok()) << "cycle " << i << ": " << out.error();
    std::vector<float> sum(4, 0.0f);
    ASSERT_TRUE((*module.method("forward"))->copy_output_to_host(0, sum.data(), 16).ok());
    ASSERT_EQ(sum, (std::vector<float>{1.5f, 2.25f, 3.125f, 4.0625f})) << "cycle " << i;
  };
  for (int i = 0; i < 3; ++i) ASSERT_NO_FATAL_FAILURE(cycle(i));  // warm-up (kernel loading)
  const std::vector<size_t> before = free_memory();
  for (int i = 0; i < 100; ++i) ASSERT_NO_FATAL_FAILURE(cycle(i));
  EXPECT_EQ(counting_.live_allocations(), 0u);
  EXPECT_TRUE(free_memory_near(before));
  EXPECT_EQ(counting_.misuse_count(), 0u) << counting_.misuse_report();
}

}  // namespace
}  // namespace devplan::cuda_testing
