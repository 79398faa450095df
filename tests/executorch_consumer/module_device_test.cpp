// ExecuTorch's Module over device-planned programs written by ExecuTorch's exporter, with
// devplan's tracking allocator behind ExecuTorch's CUDA registry slot: exact ledgers, every
// allocation failing in turn, everything freed with the Module. What an ExecuTorch developer
// writes in their own tree (docs/integration.md: "Using devplan in ExecuTorch's own tests").
#include <memory>
#include <string>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/extension/module/module.h>

#include <executorch_testing/executorch_allocator_registration.h>
#include <executorch_testing/executorch_program_gen.h>
#include <executorch_testing/leak_checked_test.h>
#include <executorch_testing/tracking_executorch_allocator.h>

#include "stand_in_backend.h"

namespace {

using ::executorch::extension::BufferDataLoader;
using ::executorch::extension::module::Module;
using ::executorch::runtime::Error;
namespace dx = ::devplan::executorch_testing;

std::string program(const char* name) { return std::string(PROGRAMS_DIR) + "/" + name; }

class ModuleDeviceTest : public dx::LeakCheckedTest {
 protected:
  void SetUp() override { register_stand_in_backend(); }
};

// devplan_two_devices.pte: non_const_buffer_sizes [0, 96, 96, 96], buffer 2 on cuda:0 and
// buffer 3 on cuda:1. ExecuTorch allocates each device buffer with alignment 8.
TEST_F(ModuleDeviceTest, LoadMethodAllocatesEachPlannedDeviceBuffer) {
  {
    Module module(program("devplan_two_devices.pte"));
    ASSERT_EQ(module.load_method("forward"), Error::Ok) << device_allocator().last_error();
    EXPECT_EQ(device_allocator().ledger_report(),
              "#1 cuda:0 96 B align 8 owner -  LIVE\n"
              "#2 cuda:1 96 B align 8 owner -  LIVE\n");
    EXPECT_EQ(tracking().stats(0).current_bytes, 96u);
    EXPECT_EQ(tracking().stats(1).current_bytes, 96u);
  }
  EXPECT_EQ(device_allocator().ledger_report(),
            "#1 cuda:0 96 B align 8 owner -  freed\n"
            "#2 cuda:1 96 B align 8 owner -  freed\n");
}

TEST_F(ModuleDeviceTest, ACpuOnlyMethodAllocatesNoDeviceMemory) {
  Module module(program("devplan_two_methods.pte"));
  ASSERT_EQ(module.load_method("cpu_only"), Error::Ok);
  EXPECT_EQ(tracking().allocate_calls(), 0u);
  ASSERT_EQ(module.load_method("forward"), Error::Ok);
  EXPECT_EQ(device_allocator().ledger_report(), "#1 cuda:0 48 B align 8 owner -  LIVE\n");
}

TEST_F(ModuleDeviceTest, EveryAllocationFailingInTurnLeavesNothingLive) {
  for (uint64_t k = 1; k <= 2; ++k) {
    SCOPED_TRACE("allocation " + std::to_string(k) + " fails");
    tracking().clear_faults();
    ASSERT_TRUE(tracking().reset().ok());
    tracking().fail_allocation_at(k);
    Module module(program("devplan_two_devices.pte"));
    EXPECT_EQ(module.load_method("forward"), Error::MemoryAllocationFailed);
    EXPECT_EQ(tracking().live_count(), 0u) << device_allocator().ledger_report();
    ASSERT_EQ(tracking().failed_allocations().size(), 1u);
    EXPECT_EQ(tracking().failed_allocations()[0].seq, k);
    EXPECT_EQ(tracking().allocate_calls(), k);  // nothing is asked for after the failure
    EXPECT_EQ(tracking().ledger_size(), k - 1);
  }
  // With no fault, the same program loads.
  tracking().clear_faults();
  ASSERT_TRUE(tracking().reset().ok());
  Module module(program("devplan_two_devices.pte"));
  EXPECT_EQ(module.load_method("forward"), Error::Ok);
}

TEST_F(ModuleDeviceTest, ACapacityTooSmallForTheBufferFailsTheLoad) {
  ASSERT_TRUE(tracking().set_capacity(1, 64).ok());  // cuda:1 holds 64 B; buffer 3 needs 96
  Module module(program("devplan_two_devices.pte"));
  EXPECT_EQ(module.load_method("forward"), Error::MemoryAllocationFailed);
  EXPECT_EQ(tracking().live_count(), 0u);
  ASSERT_EQ(tracking().failed_allocations().size(), 1u);
  EXPECT_EQ(device_allocator().ledger_report(),
            "#1 cuda:0 96 B align 8 owner -  freed\n"
            "#2 cuda:1 96 B align 8 owner -  FAILED MemoryAllocationFailed: " +
                tracking().failed_allocations()[0].reason + "\n");
}

TEST_F(ModuleDeviceTest, DestroyingTheModuleFreesEveryMethodsBuffers) {
  auto module = std::make_unique<Module>(program("devplan_two_methods.pte"));
  ASSERT_EQ(module->load_method("forward"), Error::Ok);
  ASSERT_EQ(module->load_method("cpu_only"), Error::Ok);
  EXPECT_EQ(tracking().live_count(), 1u);
  module.reset();
  EXPECT_EQ(tracking().live_count(), 0u);
  EXPECT_FALSE(tracking().has_misuse());
}

// Programs drawn by devplan's generator (written by devplan's writer): every method loads with
// one allocation per device buffer, of its planned size, and the Module frees them all.
RC_GTEST_PROP(ModuleDeviceProperties, EveryMethodAllocatesItsDeviceBuffersAndFreesThem, ()) {
  const dx::ExecutorchProgram p = *dx::gen_executorch_program();
  dx::TrackingExecutorchAllocator cuda;
  dx::ScopedExecutorchAllocator scoped(cuda);
  RC_ASSERT(scoped.status().ok());
  {
    Module module(std::make_unique<BufferDataLoader>(p.bytes.data(), p.bytes.size()));
    size_t expected_total = 0;
    for (const devplan::MethodScenario& m : p.scenario.methods) {
      RC_ASSERT(module.load_method(m.name) == Error::Ok);
      const auto expected = dx::expected_device_allocations(m);
      const auto ledger = cuda.tracking().ledger();
      RC_ASSERT(ledger.size() == expected_total + expected.size());
      for (size_t i = 0; i < expected.size(); ++i) {
        RC_ASSERT(ledger[expected_total + i].size == expected[i].size);
        RC_ASSERT(ledger[expected_total + i].device == expected[i].device);
      }
      expected_total += expected.size();
    }
  }
  RC_ASSERT(cuda.tracking().live_count() == 0u);
  RC_ASSERT(!cuda.tracking().has_misuse());
}

}  // namespace
