// ExecuTorch's runtime with `--device cuda`, without a GPU: ExecuTorch 1.5.1's Module allocates
// its device buffers through devplan's tracking stack over CudaAllocator (the CUDA runtime seam's
// fake), and its outputs match the simulated devices' bit for bit.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <harness/engine/engine.h>
#include <harness/engine/run_report.h>
#include <harness/services/run.h>
#include <harness/services/simulation.h>
#include <runtime_ext/cuda/cuda_allocator.h>
#include <runtime_ext/cuda/test/fake_cuda_runtime.h>
#include "../../test/commands_test_support.h"

namespace devplan::harness {
namespace {

using devplan::testing::FakeCudaRuntime;
using testing::exported_program;

TEST(ExecutorchOnCuda, TheExportersDeviceProgramsRunAndFreeEverythingOnTheGpu) {
  if (!executorch_available()) GTEST_SKIP() << executorch_unavailable_reason();
  const std::vector<std::string> programs = {
      "devplan_one_delegate.pte",      "devplan_broadcast.pte",     "devplan_two_delegates.pte",
      "devplan_skip_io.pte",           "devplan_skip_io_chain.pte", "devplan_two_devices.pte",
      "devplan_cpu_around_device.pte",
  };
  for (const std::string& name : programs) {
    SCOPED_TRACE(name);
    FakeCudaRuntime runtime(/*device_count=*/1, size_t{64} << 20);
    CudaAllocator allocator(runtime);
    DeviceSetup cuda;
    cuda.kind = DeviceKind::Cuda;
    cuda.memory = &allocator;
    ASSERT_TRUE(cuda.map.add(1, 0).ok());
    bool usage_error = false;
    Result<RunReport> simulated = run_program(exported_program(name), "", {}, &usage_error,
                                              DeviceSetup(), RuntimeKind::Executorch);
    Result<RunReport> on_gpu =
        run_program(exported_program(name), "", {}, &usage_error, cuda, RuntimeKind::Executorch);
    ASSERT_TRUE(simulated.ok()) << simulated.error().to_string();
    ASSERT_TRUE(on_gpu.ok()) << on_gpu.error().to_string();
    ASSERT_EQ(on_gpu->outputs.size(), simulated->outputs.size());
    for (size_t i = 0; i < on_gpu->outputs.size(); ++i) {
      EXPECT_EQ(on_gpu->outputs[i].bytes, simulated->outputs[i].bytes) << "output " << i;
    }
    EXPECT_TRUE(on_gpu->leak_lines.empty());
    EXPECT_TRUE(on_gpu->misuse_lines.empty());
    EXPECT_EQ(runtime.live_allocations(), 0u);

    Result<ProgramImage> image = ProgramImage::map(exported_program(name));
    ASSERT_TRUE(image.ok());
    SimulationOptions options;
    options.runtime = RuntimeKind::Executorch;
    Result<SimulationResult> sim_simulated = simulate_program(*image, options);
    options.device = cuda;
    Result<SimulationResult> sim_gpu = simulate_program(*image, options);
    ASSERT_TRUE(sim_simulated.ok() && sim_gpu.ok());
    ASSERT_EQ(sim_gpu->allocations.size(), sim_simulated->allocations.size());
    for (size_t i = 0; i < sim_gpu->allocations.size(); ++i) {
      EXPECT_EQ(format_allocation(sim_gpu->allocations[i]),
                format_allocation(sim_simulated->allocations[i]));
    }
    EXPECT_TRUE(sim_gpu->leaks.empty());
    EXPECT_EQ(runtime.live_allocations(), 0u);
  }
}

}  // namespace
}  // namespace devplan::harness
