// `--device cuda` without a GPU: the whole CUDA path of simulate and run (the tracking stack over
// CudaAllocator, the device map, the device backends staging through cudaMemcpy) against the
// CUDA runtime seam's fake, compared with the simulated devices on the committed programs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <harness/campaign/fuzz_campaign.h>
#include <harness/engine/run_report.h>
#include <harness/options/fuzz_command_line.h>
#include <harness/services/run.h>
#include <harness/services/simulation.h>
#include <runtime_ext/cuda/cuda_allocator.h>
#include <runtime_ext/cuda/test/fake_cuda_runtime.h>
#include "commands_test_support.h"

namespace devplan::harness {
namespace {

using devplan::testing::FakeCudaRuntime;
using testing::exported_program;
using ::testing::HasSubstr;

// One GPU of 64 MiB behind CudaAllocator: what --device cuda gets here.
struct FakeGpu {
  FakeCudaRuntime runtime{/*device_count=*/1, size_t{64} << 20};
  CudaAllocator allocator{runtime};

  DeviceSetup setup(std::vector<std::pair<DeviceIndex, DeviceIndex>> map = {}) {
    DeviceSetup s;
    s.kind = DeviceKind::Cuda;
    s.memory = &allocator;
    for (const auto& [planned, present] : map) EXPECT_TRUE(s.map.add(planned, present).ok());
    return s;
  }
};

SimulationResult simulate(const std::string& path, const DeviceSetup& device,
                          uint64_t fail_alloc = 0, UnloadBug bug = UnloadBug::None) {
  Result<ProgramImage> image = ProgramImage::map(path);
  EXPECT_TRUE(image.ok()) << image.error().to_string();
  SimulationOptions options;
  options.device = device;
  options.fail_alloc = fail_alloc;
  options.unload_bug = bug;
  Result<SimulationResult> r = simulate_program(*image, options);
  EXPECT_TRUE(r.ok()) << r.error().to_string();
  return r.ok() ? *r : SimulationResult();
}

// The ledger as its report lines: sequence, device, size, alignment, owner and state.
std::vector<std::string> ledger_lines(const std::vector<AllocationRecord>& ledger) {
  std::vector<std::string> lines;
  for (const AllocationRecord& r : ledger) {
    lines.push_back(format_allocation(r) + (r.live ? " live" : " freed"));
  }
  return lines;
}

// The exporter's device programs and the map each needs on one GPU.
struct DeviceProgram {
  const char* name;
  std::vector<std::pair<DeviceIndex, DeviceIndex>> map;
};
const DeviceProgram kDevicePrograms[] = {
    {"devplan_one_delegate.pte", {}},  {"devplan_broadcast.pte", {}},
    {"devplan_two_delegates.pte", {}}, {"devplan_skip_io.pte", {}},
    {"devplan_skip_io_chain.pte", {}}, {"devplan_legacy.pte", {}},
    {"devplan_two_methods.pte", {}},   {"devplan_cpu_around_device.pte", {}},
    {"devplan_transformer.pte", {}},   {"devplan_two_devices.pte", {{1, 0}}},
};

TEST(CudaDevice, SimulateAllocatesOnTheGpuExactlyWhatTheSimulatedDevicesDo) {
  size_t allocations = 0;
  for (const DeviceProgram& p : kDevicePrograms) {
    SCOPED_TRACE(p.name);
    FakeGpu gpu;
    const SimulationResult simulated = simulate(exported_program(p.name), DeviceSetup());
    const SimulationResult cuda = simulate(exported_program(p.name), gpu.setup(p.map));
    EXPECT_EQ(cuda.device_memory, "cuda");
    EXPECT_EQ(ledger_lines(cuda.allocations), ledger_lines(simulated.allocations));
    allocations += cuda.allocations.size();
    EXPECT_TRUE(cuda.leaks.empty());
    EXPECT_TRUE(cuda.misuse.empty());
    EXPECT_EQ(cuda.all_loaded(), simulated.all_loaded());
    EXPECT_EQ(gpu.runtime.live_allocations(), 0u);  // every block back to the device
  }
  EXPECT_EQ(allocations, 15u);
}

TEST(CudaDevice, RunGivesTheSameOutputBitsAsTheSimulatedDevices) {
  for (const DeviceProgram& p : kDevicePrograms) {
    const std::string name = p.name;
    // Kernels devplan's engine lacks (ExecuTorch's runs them: the executorch label).
    if (name == "devplan_two_methods.pte" || name == "devplan_cpu_around_device.pte" ||
        name == "devplan_transformer.pte") {
      continue;
    }
    SCOPED_TRACE(p.name);
    FakeGpu gpu;
    bool usage_error = false;
    Result<RunReport> simulated =
        run_program(exported_program(p.name), "", {}, &usage_error, DeviceSetup());
    Result<RunReport> cuda =
        run_program(exported_program(p.name), "", {}, &usage_error, gpu.setup(p.map));
    ASSERT_TRUE(simulated.ok()) << simulated.error().to_string();
    ASSERT_TRUE(cuda.ok()) << cuda.error().to_string();
    ASSERT_EQ(cuda->outputs.size(), simulated->outputs.size());
    for (size_t i = 0; i < cuda->outputs.size(); ++i) {
      EXPECT_EQ(cuda->outputs[i].device, simulated->outputs[i].device);
      EXPECT_EQ(cuda->outputs[i].bytes, simulated->outputs[i].bytes);
    }
    EXPECT_TRUE(cuda->leak_lines.empty());
    EXPECT_TRUE(cuda->misuse_lines.empty());
    EXPECT_EQ(gpu.runtime.live_allocations(), 0u);
  }
}

TEST(CudaDevice, ADeviceMapIsNamedAndTheLedgerKeepsThePlannedDevice) {
  FakeGpu gpu;
  const SimulationResult r =
      simulate(exported_program("devplan_two_devices.pte"), gpu.setup({{1, 0}}));
  EXPECT_EQ(r.device_map, "cuda:1=cuda:0");
  bool on_cuda1 = false;
  for (const AllocationRecord& a : r.allocations) on_cuda1 |= a.device == Device::cuda(1);
  EXPECT_TRUE(on_cuda1);
  bool usage_error = false;
  Result<RunReport> run = run_program(exported_program("devplan_two_devices.pte"), "", {},
                                      &usage_error, gpu.setup({{1, 0}}));
  ASSERT_TRUE(run.ok()) << run.error().to_string();
  EXPECT_EQ(run->device_map, "cuda:1=cuda:0");
}

TEST(CudaDevice, WithoutTheMapATwoGpuProgramFailsToLoadNamingTheAbsentDevice) {
  FakeGpu gpu;
  const SimulationResult r = simulate(exported_program("devplan_two_devices.pte"), gpu.setup());
  EXPECT_FALSE(r.all_loaded());
  ASSERT_FALSE(r.methods.empty());
  EXPECT_THAT(r.methods[0].status.message(),
              HasSubstr("invalid device cuda:1: 1 CUDA device is visible (cuda:0)"));
  ASSERT_EQ(r.failed_allocations.size(), 1u);
  EXPECT_EQ(r.failed_allocations[0].device, Device::cuda(1));
  EXPECT_TRUE(r.leaks.empty());
  EXPECT_EQ(gpu.runtime.live_allocations(), 0u);
}

TEST(CudaDevice, EachAllocationFailingInTurnLeavesNothingOnTheGpu) {
  const std::string program = exported_program("devplan_two_devices.pte");
  const size_t calls = simulate(program, DeviceSetup()).allocations.size();
  ASSERT_EQ(calls, 2u);
  for (uint64_t n = 1; n <= calls; ++n) {
    SCOPED_TRACE("--fail-alloc " + std::to_string(n));
    FakeGpu gpu;
    const SimulationResult simulated = simulate(program, DeviceSetup(), n);
    const SimulationResult cuda = simulate(program, gpu.setup({{1, 0}}), n);
    EXPECT_FALSE(cuda.all_loaded());
    ASSERT_EQ(cuda.failed_allocations.size(), 1u);
    EXPECT_EQ(cuda.failed_allocations[0].seq, n);
    EXPECT_EQ(ledger_lines(cuda.allocations), ledger_lines(simulated.allocations));
    EXPECT_TRUE(cuda.leaks.empty());
    EXPECT_EQ(gpu.runtime.live_allocations(), 0u);
  }
}

TEST(CudaDevice, AnInjectedDoubleFreeIsCaughtBeforeCudaFreeSeesIt) {
  const std::string program = exported_program("devplan_one_delegate.pte");
  FakeGpu gpu;
  const SimulationResult simulated = simulate(program, DeviceSetup(), 0, UnloadBug::DoubleFree);
  const SimulationResult cuda = simulate(program, gpu.setup(), 0, UnloadBug::DoubleFree);
  ASSERT_FALSE(cuda.misuse.empty());
  std::vector<std::string> simulated_lines, cuda_lines;
  for (const MisuseRecord& m : simulated.misuse) simulated_lines.push_back(m.message);
  for (const MisuseRecord& m : cuda.misuse) cuda_lines.push_back(m.message);
  EXPECT_EQ(cuda_lines, simulated_lines);
  EXPECT_THAT(cuda_lines[0], HasSubstr("double free of #1 cuda:0"));
  size_t frees = 0;
  for (const std::string& call : gpu.runtime.calls()) frees += call.rfind("free", 0) == 0;
  EXPECT_EQ(frees, cuda.allocations.size());  // one cudaFree per block, the second never sent
  EXPECT_EQ(gpu.runtime.live_allocations(), 0u);
}

TEST(CudaDevice, ASkippedFreeIsALeakOnTheGpuAndTheEnvironmentStillReturnsTheMemory) {
  const std::string program = exported_program("devplan_one_delegate.pte");
  FakeGpu gpu;
  const SimulationResult cuda = simulate(program, gpu.setup(), 0, UnloadBug::SkipFree);
  const SimulationResult simulated = simulate(program, DeviceSetup(), 0, UnloadBug::SkipFree);
  ASSERT_FALSE(cuda.leaks.empty());
  EXPECT_EQ(cuda.leak_lines, simulated.leak_lines);
  EXPECT_EQ(gpu.runtime.live_allocations(), 0u);
}

TEST(CudaDevice, ACapacityOnTheGpuFailsTheLoadAsOnTheSimulatedDevice) {
  const std::string program = exported_program("devplan_one_delegate.pte");
  FakeGpu gpu;
  Result<ProgramImage> image = ProgramImage::map(program);
  ASSERT_TRUE(image.ok());
  SimulationOptions options;
  options.device = gpu.setup();
  options.capacities = {{Device::cuda(0), 1}};
  Result<SimulationResult> r = simulate_program(*image, options);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_FALSE(r->all_loaded());
  ASSERT_EQ(r->failed_allocations.size(), 1u);
  EXPECT_EQ(r->failed_allocations[0].code, ErrorCode::MemoryAllocationFailed);
  EXPECT_THAT(r->failed_allocations[0].reason, HasSubstr("capacity"));
  size_t mallocs = 0;
  for (const std::string& call : gpu.runtime.calls()) mallocs += call.rfind("malloc", 0) == 0;
  EXPECT_EQ(mallocs, 0u);
}

// The fuzz campaign's checks on the GPU's memory (every planned index mapped onto the one GPU, as
// `devplan fuzz --device cuda` does on a one-GPU machine): the same cases allocate the same.
TEST(CudaDevice, AFuzzCampaignOnTheGpuMakesTheSimulatedCampaignsAllocations) {
  CampaignOptions o;
  o.seed = 6;
  o.max_cases = 40;
  o.scenario = command_line_scenario();
  const CampaignResult simulated = run_campaign(o, {});
  FakeCudaRuntime runtime(/*device_count=*/1, size_t{256} << 20);
  CudaAllocator allocator(runtime);
  DeviceSetup setup;
  setup.kind = DeviceKind::Cuda;
  setup.memory = &allocator;
  for (int index = 1; index <= kMaxDeviceIndex; ++index) {
    ASSERT_TRUE(setup.map.add(static_cast<DeviceIndex>(index), 0).ok());
  }
  Result<std::unique_ptr<RealDeviceMemory>> memory = RealDeviceMemory::open(setup);
  ASSERT_TRUE(memory.ok()) << memory.error().to_string();
  o.checks.device_memory = (*memory)->allocator();
  const CampaignResult cuda = run_campaign(o, {});
  ASSERT_FALSE(cuda.failure.has_value()) << cuda.failure->finding.message;
  EXPECT_EQ(cuda.cases, 40u);
  EXPECT_EQ(cuda.totals.allocations, simulated.totals.allocations);
  EXPECT_EQ(cuda.totals.frees, cuda.totals.allocations);
  EXPECT_EQ(cuda.totals.allocated_bytes, simulated.totals.allocated_bytes);
  EXPECT_EQ(runtime.live_allocations(), 0u);
}

// The device options' usage errors: exit 2 and one line saying what is wrong, on any machine.
TEST(CudaDeviceOptions, UsageErrorsNameWhatIsWrong) {
  const std::string p = exported_program("devplan_two_devices.pte");
  const std::string q = exported_program("devplan_one_delegate.pte");
  struct Case {
    testing::CommandFn command;
    Args args;
    std::string first_line;
  };
  const Case cases[] = {
      {&simulate_command,
       {p, "--device-map", "cuda:1=cuda:0"},
       "devplan simulate: --device-map: needs --device cuda (the simulated devices have every "
       "index from cuda:0 to cuda:127)"},
      {&run_command,
       {p, "--device", "cuda", "--device-map", "cuda:1"},
       "devplan run: --device-map: --device-map expects PLANNED=PRESENT, two CUDA devices like "
       "cuda:1=cuda:0, got 'cuda:1'"},
      {&simulate_command,
       {p, "--device", "cuda", "--device-map", "cpu:0=cuda:0"},
       "devplan simulate: --device-map: --device-map expects PLANNED=PRESENT, two CUDA devices "
       "like cuda:1=cuda:0, got 'cpu:0=cuda:0'"},
      {&report_command,
       {p, "--device", "cuda", "--device-map", "cuda:1=cuda:0", "--device-map", "cuda:1=cuda:2"},
       "devplan report: --device-map: cuda:1 is mapped twice (to cuda:0 and cuda:2)"},
      {&diff_command,
       {p, q, "--device", "cuda"},
       "devplan diff: --device cuda needs --runtime (without it diff loads nothing)"},
      {&simulate_command,
       {p, "--device", "cuda", "--backing", "host"},
       "devplan simulate: --backing applies to the simulated devices, not --device cuda"},
      {&fuzz_command,
       {"--device-map", "cuda:1=cuda:0", "--cases", "1"},
       "devplan fuzz: --device-map: needs --device cuda (the simulated devices have every index "
       "from cuda:0 to cuda:127)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.first_line);
    const testing::CommandResult r = testing::run(c.command, c.args);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err.substr(0, r.err.find('\n')), c.first_line);
  }
}

TEST(CudaDeviceOptions, AMapIsRepeatableAndTheSameMappingTwiceIsOne) {
  DeviceMap map;
  ASSERT_TRUE(map.add(1, 0).ok());
  ASSERT_TRUE(map.add(1, 0).ok());
  ASSERT_TRUE(map.add(3, 1).ok());
  EXPECT_EQ(map.describe(), "cuda:1=cuda:0, cuda:3=cuda:1");
  DeviceSetup setup;
  EXPECT_EQ(setup.arguments(), "");
  EXPECT_EQ(setup.describe(), "simulated");
  setup.kind = DeviceKind::Cuda;
  EXPECT_EQ(setup.arguments(), " --device cuda");
  setup.map = map;
  EXPECT_EQ(setup.arguments(),
            " --device cuda --device-map cuda:1=cuda:0 --device-map cuda:3=cuda:1");
  EXPECT_EQ(setup.describe(), "cuda (device map cuda:1=cuda:0, cuda:3=cuda:1)");
  EXPECT_EQ(map.add(-1, 0).message(), "device indices must not be negative");
  Result<std::pair<DeviceIndex, DeviceIndex>> entry = parse_device_map_entry("cuda:7=cuda:2");
  ASSERT_TRUE(entry.ok());
  EXPECT_EQ(entry->first, 7);
  EXPECT_EQ(entry->second, 2);
  EXPECT_FALSE(parse_device_map_entry("cuda:1=").ok());
  EXPECT_FALSE(parse_device_map_entry("=cuda:0").ok());
  EXPECT_FALSE(parse_device_map_entry("cuda:1=cuda:0=cuda:2").ok());
  EXPECT_FALSE(parse_device_map_entry("cuda:128=cuda:0").ok());
}

}  // namespace
}  // namespace devplan::harness
