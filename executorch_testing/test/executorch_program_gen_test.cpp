// gen_executorch_program: the programs it draws load in ExecuTorch's own Module, allocate one
// block per planned device buffer with the planned size, and free everything with the Module.
#include <executorch_testing/executorch_program_gen.h>

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/extension/module/module.h>

#include <executorch_testing/leak_checked_test.h>
#include <property_tests/property.h>

namespace devplan::executorch_testing {
namespace {

using ::executorch::extension::BufferDataLoader;
using ::executorch::extension::module::Module;

class ExecutorchProgramGen : public LeakCheckedTest {};

TEST_F(ExecutorchProgramGen, OptionsLeaveOutWhatExecutorchCannotRun) {
  const ScenarioOptions o = executorch_program_options();
  EXPECT_EQ(o.ops, (std::vector<ScenarioOp>{ScenarioOp::Add, ScenarioOp::Mul, ScenarioOp::CopyH2D,
                                            ScenarioOp::CopyD2H}));
  EXPECT_EQ(o.max_methods, 3u);
  EXPECT_EQ(o.max_buffers, 8u);
}

TEST_F(ExecutorchProgramGen, EveryMethodLoadsWithOneAllocationPerDeviceBuffer) {
  TrackingExecutorchAllocator& cuda = device_allocator();
  ::devplan::testing::check_property([&] {
    const ExecutorchProgram program = *gen_executorch_program();
    for (const MethodScenario& m : program.scenario.methods) {
      RC_ASSERT(cuda.tracking().reset().ok());
      const std::vector<ExpectedDeviceAllocation> expected = expected_device_allocations(m);
      {
        Module module(
            std::make_unique<BufferDataLoader>(program.bytes.data(), program.bytes.size()));
        const et::Error e = module.load_method(m.name);
        RC_ASSERT(e == et::Error::Ok);
        const std::vector<AllocationRecord> ledger = cuda.tracking().ledger();
        RC_ASSERT(ledger.size() == expected.size());
        for (size_t i = 0; i < expected.size(); ++i) {
          RC_ASSERT(ledger[i].size == expected[i].size);
          RC_ASSERT(ledger[i].device == expected[i].device);
          RC_ASSERT(ledger[i].alignment == 8u);
          RC_ASSERT(ledger[i].live);
        }
      }
      RC_ASSERT(cuda.tracking().live_count() == 0u);
      RC_ASSERT(!cuda.tracking().has_misuse());
    }
  });
}

}  // namespace
}  // namespace devplan::executorch_testing
