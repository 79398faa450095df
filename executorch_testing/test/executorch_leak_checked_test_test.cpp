// devplan::executorch_testing::LeakCheckedTest: each test gets a fresh allocator installed in
// ExecuTorch's registry (so many tests in one binary never abort on a second registration), and
// a leak or misuse fails the test with the reports and the ledger.
#include <executorch_testing/leak_checked_test.h>

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

namespace devplan::executorch_testing {
namespace {

class ExecutorchLeakCheckedTest : public LeakCheckedTest {
 protected:
  et::DeviceAllocator& registry_cuda() {
    et::DeviceAllocator* a = et::get_device_allocator(EtDeviceType::CUDA);
    EXPECT_NE(a, nullptr);
    return *a;
  }
};

TEST_F(ExecutorchLeakCheckedTest, ExecutorchsRegistryReachesThisTestsAllocator) {
  EXPECT_EQ(installed_allocator(EtDeviceType::CUDA), &device_allocator());
  et::Result<void*> p = registry_cuda().allocate(48, 0, 8);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(tracking().leak_report(), "#1 cuda:0 48 B align 8 owner -\n");
  registry_cuda().deallocate(*p, 0);
}

TEST_F(ExecutorchLeakCheckedTest, EachTestGetsAFreshAllocator) {
  EXPECT_EQ(tracking().allocate_calls(), 0u);
  EXPECT_EQ(installed_allocator(EtDeviceType::CUDA), &device_allocator());
}

TEST_F(ExecutorchLeakCheckedTest, ALeakFailsTheTestWithTheLedger) {
  et::Result<void*> kept = registry_cuda().allocate(48, 0, 8);
  ASSERT_TRUE(kept.ok());
  et::Result<void*> freed = registry_cuda().allocate(16, 1, 8);
  ASSERT_TRUE(freed.ok());
  registry_cuda().deallocate(*freed, 1);
  EXPECT_NONFATAL_FAILURE(TearDown(),
                          "device memory check failed: 1 live allocation (expected 0), 0 misuse "
                          "records (expected 0)\n"
                          "leak report:\n"
                          "  #1 cuda:0 48 B align 8 owner -\n"
                          "misuse report:\n"
                          "  (none)\n"
                          "ledger:\n"
                          "  #1 cuda:0 48 B align 8 owner -  LIVE\n"
                          "  #2 cuda:1 16 B align 8 owner -  freed");
  registry_cuda().deallocate(*kept, 0);
}

TEST_F(ExecutorchLeakCheckedTest, ADoubleFreeFailsTheTest) {
  et::Result<void*> p = registry_cuda().allocate(16, 0, 8);
  ASSERT_TRUE(p.ok());
  registry_cuda().deallocate(*p, 0);
  registry_cuda().deallocate(*p, 0);
  EXPECT_NONFATAL_FAILURE(TearDown(), "1 misuse record (expected 0)");
  expect_misuse(1);
}

TEST_F(ExecutorchLeakCheckedTest, ExpectLeaksAcceptsADeliberateLeak) {
  expect_leaks(1);
  ASSERT_TRUE(registry_cuda().allocate(32, 0, 8).ok());
}

}  // namespace
}  // namespace devplan::executorch_testing
