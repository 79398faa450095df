// The devplan tool's services on a real GPU (`--device cuda`): the exporter's device programs
// allocate on the GPU exactly what the simulated devices record, give the same outputs in both
// engines (ExecuTorch 1.5.1's Module with devplan's allocator registered), return every byte of
// device memory, and each device allocation failing in turn leaves nothing behind. Programs from
// DEVPLAN_PROGRAMS_DIR (scripts/cuda-check.sh --prebuilt sets it) or the source tree.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include <harness/engine/engine.h>
#include <harness/engine/run_report.h>
#include <harness/services/probe.h>
#include <harness/services/program_figures.h>
#include <harness/services/run.h>
#include <harness/services/simulation.h>

#include <harness/campaign/fuzz_campaign.h>
#include <harness/options/fuzz_command_line.h>
#include <runtime_ext/cuda/cuda_allocator.h>
#include <runtime_ext/cuda/cuda_pointer_check.h>
#include <runtime_ext/cuda/real_cuda_runtime.h>

#include "cuda_test.h"

namespace devplan::cuda_testing {
namespace {

using harness::DeviceKind;
using harness::DeviceSetup;
using harness::RunReport;
using harness::RuntimeKind;
using harness::SimulationOptions;
using harness::SimulationResult;

std::string program(const std::string& name) {
  const char* dir = std::getenv("DEVPLAN_PROGRAMS_DIR");
  return (dir != nullptr ? std::string(dir)
                         : std::string(DEVPLAN_SOURCE_DIR) + "/fixtures/executorch/exporter") +
         "/" + name;
}

// Every planned index on the GPUs present (cuda:k on cuda:k % count), as on a one-GPU machine.
DeviceSetup gpu(int device_count) {
  DeviceSetup setup;
  setup.kind = DeviceKind::Cuda;
  for (int k = device_count; k < 4; ++k) {
    EXPECT_TRUE(
        setup.map.add(static_cast<DeviceIndex>(k), static_cast<DeviceIndex>(k % device_count))
            .ok());
  }
  return setup;
}

std::vector<std::string> ledger_lines(const std::vector<AllocationRecord>& ledger) {
  std::vector<std::string> lines;
  for (const AllocationRecord& r : ledger) {
    lines.push_back(format_allocation(r) + (r.live ? " live" : " freed"));
  }
  return lines;
}

SimulationResult simulate(const std::string& path, const DeviceSetup& device, RuntimeKind runtime,
                          uint64_t fail_alloc = 0) {
  Result<harness::ProgramImage> image = harness::ProgramImage::map(path);
  EXPECT_TRUE(image.ok()) << image.error().to_string();
  if (!image.ok()) return SimulationResult();
  SimulationOptions options;
  options.device = device;
  options.runtime = runtime;
  options.fail_alloc = fail_alloc;
  Result<SimulationResult> r = simulate_program(*image, options);
  EXPECT_TRUE(r.ok()) << r.error().to_string();
  return r.ok() ? *r : SimulationResult();
}

const char* const kPrograms[] = {
    "devplan_one_delegate.pte", "devplan_broadcast.pte",     "devplan_two_delegates.pte",
    "devplan_skip_io.pte",      "devplan_skip_io_chain.pte", "devplan_two_devices.pte",
};

class CudaToolTest : public CudaTest {};

TEST_F(CudaToolTest, BothEnginesAllocateOnTheGpuWhatTheSimulatedDevicesRecord) {
  for (RuntimeKind runtime : harness::built_runtimes()) {
    for (const char* name : kPrograms) {
      SCOPED_TRACE(std::string(name) + " under " + harness::runtime_name(runtime));
      const size_t free_before = free_device_memory(0);
      {
        const SimulationResult simulated = simulate(program(name), DeviceSetup(), runtime);
        const SimulationResult cuda = simulate(program(name), gpu(device_count()), runtime);
        EXPECT_EQ(cuda.device_memory, "cuda");
        EXPECT_EQ(ledger_lines(cuda.allocations), ledger_lines(simulated.allocations));
        EXPECT_TRUE(cuda.all_loaded());
        EXPECT_TRUE(cuda.leaks.empty());
        EXPECT_TRUE(cuda.misuse.empty());
      }
      if (!under_compute_sanitizer()) EXPECT_EQ(free_device_memory(0), free_before);
    }
  }
}

TEST_F(CudaToolTest, BothEnginesRunWithTheSimulatedDevicesOutputBits) {
  for (RuntimeKind runtime : harness::built_runtimes()) {
    for (const char* name : kPrograms) {
      SCOPED_TRACE(std::string(name) + " under " + harness::runtime_name(runtime));
      bool usage_error = false;
      Result<RunReport> simulated =
          harness::run_program(program(name), "", {}, &usage_error, DeviceSetup(), runtime);
      Result<RunReport> cuda =
          harness::run_program(program(name), "", {}, &usage_error, gpu(device_count()), runtime);
      ASSERT_TRUE(simulated.ok()) << simulated.error().to_string();
      ASSERT_TRUE(cuda.ok()) << cuda.error().to_string();
      ASSERT_EQ(cuda->outputs.size(), simulated->outputs.size());
      for (size_t i = 0; i < cuda->outputs.size(); ++i) {
        EXPECT_EQ(cuda->outputs[i].bytes, simulated->outputs[i].bytes) << "output " << i;
      }
      EXPECT_TRUE(cuda->leak_lines.empty());
      EXPECT_TRUE(cuda->misuse_lines.empty());
    }
  }
}

TEST_F(CudaToolTest, EachDeviceAllocationFailingInTurnLeavesNothingOnTheGpu) {
  const std::string name = program("devplan_two_devices.pte");
  for (RuntimeKind runtime : harness::built_runtimes()) {
    const size_t calls = simulate(name, DeviceSetup(), runtime).allocations.size();
    ASSERT_GT(calls, 0u);
    for (uint64_t n = 1; n <= calls; ++n) {
      SCOPED_TRACE("--fail-alloc " + std::to_string(n) + " under " +
                   harness::runtime_name(runtime));
      const size_t free_before = free_device_memory(0);
      {
        const SimulationResult cuda = simulate(name, gpu(device_count()), runtime, n);
        EXPECT_FALSE(cuda.all_loaded());
        ASSERT_EQ(cuda.failed_allocations.size(), 1u);
        EXPECT_EQ(cuda.failed_allocations[0].seq, n);
        EXPECT_TRUE(cuda.leaks.empty());
      }
      if (!under_compute_sanitizer()) EXPECT_EQ(free_device_memory(0), free_before);
    }
  }
}

// The real CUDA runtime with cudaMalloc failing at its N-th call: a driver failure in the middle
// of a load, under the ledger (which records it as a failed allocation with CUDA's words).
class MallocFailingRuntime : public CudaRuntime {
 public:
  explicit MallocFailingRuntime(uint64_t fail_at) : fail_at_(fail_at) {}
  int get_device_count(int* count) override { return real_.get_device_count(count); }
  int get_device(int* device) override { return real_.get_device(device); }
  int set_device(int device) override { return real_.set_device(device); }
  int malloc(void** ptr, size_t nbytes) override {
    if (++mallocs_ == fail_at_) return kCudaErrorMemoryAllocation;
    return real_.malloc(ptr, nbytes);
  }
  int free(void* ptr) override { return real_.free(ptr); }
  int memcpy(void* dst, const void* src, size_t nbytes, CudaMemcpyDirection direction) override {
    return real_.memcpy(dst, src, nbytes, direction);
  }
  const char* get_error_string(int status) override { return real_.get_error_string(status); }
  int mem_get_info(size_t* free_bytes, size_t* total_bytes) override {
    return real_.mem_get_info(free_bytes, total_bytes);
  }
  int pointer_get_attributes(CudaPointerAttributes* attributes, const void* ptr) override {
    return real_.pointer_get_attributes(attributes, ptr);
  }

 private:
  CudaRuntime& real_ = real_cuda_runtime();
  const uint64_t fail_at_;
  uint64_t mallocs_ = 0;
};

TEST_F(CudaToolTest, EachCudaMallocFailingInTurnFailsTheLoadAndLeavesNothingOnTheGpu) {
  const std::string name = program("devplan_two_devices.pte");
  for (RuntimeKind runtime : harness::built_runtimes()) {
    const size_t calls = simulate(name, DeviceSetup(), runtime).allocations.size();
    ASSERT_GT(calls, 0u);
    for (uint64_t n = 1; n <= calls; ++n) {
      SCOPED_TRACE("cudaMalloc " + std::to_string(n) + " fails, under " +
                   harness::runtime_name(runtime));
      const size_t free_before = free_device_memory(0);
      {
        MallocFailingRuntime failing(n);
        CudaAllocator allocator(failing);
        DeviceSetup setup = gpu(device_count());
        setup.memory = &allocator;
        const SimulationResult cuda = simulate(name, setup, runtime);
        EXPECT_FALSE(cuda.all_loaded());
        ASSERT_EQ(cuda.failed_allocations.size(), 1u);
        EXPECT_EQ(cuda.failed_allocations[0].code, ErrorCode::MemoryAllocationFailed);
        EXPECT_NE(cuda.failed_allocations[0].reason.find("cudaMalloc"), std::string::npos)
            << cuda.failed_allocations[0].reason;
        EXPECT_TRUE(cuda.leaks.empty());
        EXPECT_TRUE(cuda.misuse.empty());
      }
      if (!under_compute_sanitizer()) EXPECT_EQ(free_device_memory(0), free_before);
    }
  }
}

TEST_F(CudaToolTest, LoadedBuffersAreDeviceMemoryOfTheGpuTheyArePlacedOn) {
  for (RuntimeKind runtime : harness::built_runtimes()) {
    SCOPED_TRACE(harness::runtime_name(runtime));
    const DeviceSetup setup = gpu(device_count());
    Result<std::unique_ptr<harness::DeviceEnvironment>> env =
        harness::DeviceEnvironment::create(setup);
    ASSERT_TRUE(env.ok()) << env.error().to_string();
    Result<harness::ProgramImage> image =
        harness::ProgramImage::map(program("devplan_two_devices.pte"));
    ASSERT_TRUE(image.ok());
    Result<std::unique_ptr<harness::EngineSession>> session =
        harness::open_session(runtime, *image, **env, harness::SessionOptions());
    ASSERT_TRUE(session.ok()) << session.error().to_string();
    ASSERT_TRUE((*session)->load_method("forward").ok());
    const std::vector<AllocationRecord> live = (*env)->leaks();
    ASSERT_EQ(live.size(), 2u);
    for (const AllocationRecord& r : live) {
      const DeviceIndex gpu_index = r.device.index % device_count();
      EXPECT_TRUE(
          check_cuda_device_pointer(real_cuda_runtime(), r.ptr, gpu_index, format_allocation(r))
              .ok());
    }
    ASSERT_TRUE((*session)->unload_method("forward").ok());
    EXPECT_TRUE((*env)->leaks().empty());
  }
}

// Generated programs through every fuzz check on the GPU, and (with ExecuTorch) the two engines
// compared on it: simulated devices, the GPU under runtime_ext and under ExecuTorch agree.
// devplan probe on the GPU: the poisoned buffers filled through cudaMemcpy, the device backends'
// work done by the CUDA kernels; the same findings (none, or a planted bug's lines) as on the
// simulated devices, and every byte returned.
TEST_F(CudaToolTest, ProbeOnTheGpuFindsWhatTheSimulatedDevicesShow) {
  for (RuntimeKind runtime : harness::built_runtimes()) {
    for (const char* name : kPrograms) {
      for (ComputeBug bug :
           {ComputeBug::None, ComputeBug::UnwrittenOutput, ComputeBug::ReadBeforeWrite}) {
        SCOPED_TRACE(std::string(name) + " under " + harness::runtime_name(runtime) + ", bug " +
                     compute_bug_name(bug));
        const size_t free_before = free_device_memory(0);
        {
          Result<harness::ProgramImage> image = harness::ProgramImage::map(program(name));
          ASSERT_TRUE(image.ok()) << image.error().to_string();
          harness::ProbeOptions options;
          options.runtime = runtime;
          options.compute_bug = bug;
          bool usage_error = false;
          Result<harness::ProbeReport> simulated =
              harness::probe_program(*image, options, &usage_error);
          options.device = gpu(device_count());
          Result<harness::ProbeReport> cuda = harness::probe_program(*image, options, &usage_error);
          ASSERT_TRUE(simulated.ok()) << simulated.error().to_string();
          ASSERT_TRUE(cuda.ok()) << cuda.error().to_string();
          ASSERT_EQ(cuda->methods.size(), simulated->methods.size());
          for (size_t m = 0; m < cuda->methods.size(); ++m) {
            std::vector<std::string> on_gpu, on_simulated;
            for (const harness::ProbeFinding& f : cuda->methods[m].findings) {
              on_gpu.push_back(f.line());
            }
            for (const harness::ProbeFinding& f : simulated->methods[m].findings) {
              on_simulated.push_back(f.line());
            }
            EXPECT_EQ(on_gpu, on_simulated);
            EXPECT_EQ(cuda->methods[m].probed, simulated->methods[m].probed);
          }
          if (bug == ComputeBug::None) {
            EXPECT_EQ(cuda->finding_count(), 0u);
          } else {
            EXPECT_GT(cuda->finding_count(), 0u);
          }
          EXPECT_TRUE(cuda->leak_lines.empty());
          EXPECT_TRUE(cuda->misuse_lines.empty());
        }
        if (!under_compute_sanitizer()) EXPECT_EQ(free_device_memory(0), free_before);
      }
    }
  }
}

TEST_F(CudaToolTest, AFuzzCampaignOnTheGpuFindsNothing) {
  harness::CampaignOptions o;
  o.seed = 3;
  o.max_cases = 60;
  o.scenario = harness::command_line_scenario();
  o.checks.differential = harness::executorch_available();
  DeviceSetup setup;
  setup.kind = DeviceKind::Cuda;
  Result<std::unique_ptr<harness::RealDeviceMemory>> memory =
      harness::RealDeviceMemory::open(setup, /*wrap_absent=*/true);
  ASSERT_TRUE(memory.ok()) << memory.error().to_string();
  o.checks.device_memory = (*memory)->allocator();
  const size_t free_before = free_device_memory(0);
  const harness::CampaignResult r = harness::run_campaign(o, {});
  ASSERT_FALSE(r.failure.has_value())
      << r.failure->finding.check << ": " << r.failure->finding.message;
  EXPECT_EQ(r.cases, 60u);
  EXPECT_EQ(r.totals.frees, r.totals.allocations);
  if (!under_compute_sanitizer()) EXPECT_EQ(free_device_memory(0), free_before);
}

}  // namespace
}  // namespace devplan::cuda_testing
