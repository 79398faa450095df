// devplan::executorch_testing::LeakCheckedTest: a GoogleTest base fixture for ExecuTorch's own
// tests. Every test gets a fresh TrackingExecutorchAllocator for CUDA, installed in ExecuTorch's
// allocator registry for the test's lifetime (ScopedExecutorchAllocator: registered once per
// process, so any number of tests, suites and repeated set-ups in one binary never abort), and
// the test fails at TearDown when any device allocation is still live or any misuse (double,
// wrong-device or unknown free, bad copy) was recorded, printing the leak and misuse reports
// and the whole ledger.
//
//   #include <executorch_testing/leak_checked_test.h>
//
//   class ModuleDeviceTest : public devplan::executorch_testing::LeakCheckedTest {};
//
//   TEST_F(ModuleDeviceTest, LoadMethodAllocatesThePlannedBuffer) {
//     executorch::extension::Module module("device_planned.pte");
//     ASSERT_EQ(module.load_method("forward"), executorch::runtime::Error::Ok);
//     ASSERT_EQ(tracking().ledger_size(), 1u);
//     EXPECT_EQ(tracking().ledger()[0].size, 48u);
//   }  // the Module frees its buffer; TearDown finds nothing live
//
//   TEST_F(ModuleDeviceTest, AFailedAllocationLeavesNothingLive) {
//     tracking().fail_allocation_at(1);
//     executorch::extension::Module module("device_planned.pte");
//     EXPECT_EQ(module.load_method("forward"),
//               executorch::runtime::Error::MemoryAllocationFailed);
//   }
//
// The failure is one ADD_FAILURE whose message is (fixtures/device_memory_check.h):
//   device memory check failed: 1 live allocation (expected 0), 0 misuse records (expected 0)
//   leak report:
//     #1 cuda:0 48 B align 8 owner -
//   misuse report:
//     (none)
//   ledger:
//     #1 cuda:0 48 B align 8 owner -  LIVE
//
// Rules for subclasses:
//   - The allocator is installed in the constructor, so members and SetUp() may allocate.
//   - Objects that own device memory (a Module, a Method) must be gone before TearDown():
//     locals of the test body, or members reset in an overriding TearDown() that then calls
//     LeakCheckedTest::TearDown(); the destructor reports a failure if the check never ran.
//   - When ExecuTorch's registry already holds another CUDA allocator (one registered by a
//     static initialiser before the first test), the constructor fails the test saying so.
// ExecuTorch's runtime_init() is called once before the first test.
#pragma once

#include <cstddef>

#include <gtest/gtest.h>

#include <executorch_testing/executorch_allocator_registration.h>
#include <executorch_testing/tracking_executorch_allocator.h>
#include <fixtures/device_memory_check.h>

namespace devplan::executorch_testing {

class LeakCheckedTest : public DeviceMemoryCheckedTest {
 protected:
  LeakCheckedTest();
  ~LeakCheckedTest() override;

  // TearDown(), expect_leaks(), expect_misuse() and check_device_memory() are
  // DeviceMemoryCheckedTest's (fixtures/device_memory_check.h), here with the ledger.

  // The allocator ExecuTorch allocates CUDA memory through during this test.
  TrackingExecutorchAllocator& device_allocator() { return allocator_; }
  // Its tracking stack: settings, ledger, misuse, statistics.
  TrackingDeviceAllocator& tracking() { return allocator_.tracking(); }
  const TrackingDeviceAllocator& tracking() const { return allocator_.tracking(); }

 private:
  const TrackingDeviceAllocator& checked_allocator() const override {
    return allocator_.tracking();
  }
  bool report_ledger() const override { return true; }

  TrackingExecutorchAllocator allocator_{EtDeviceType::CUDA};
  ScopedExecutorchAllocator scoped_{allocator_};
};

}  // namespace devplan::executorch_testing
