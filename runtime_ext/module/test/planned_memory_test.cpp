#include <runtime_ext/module/planned_memory.h>

#include <fixtures/leak_checked_test.h>
#include <gtest/gtest.h>
#include <runtime_ext/writer/method_builder.h>

namespace devplan {
namespace {

using PlannedMemoryTest = LeakCheckedTest;

MethodPlan plan_with(const std::vector<std::pair<uint64_t, Device>>& buffers) {
  MethodBuilder m("m");
  for (auto& [size, device] : buffers) m.add_buffer(size, device);
  return m.plan();
}

TEST_F(PlannedMemoryTest, CpuBuffersAreHostMemoryAlignedAndZeroed) {
  MethodPlan plan = plan_with({{24, Device::cpu()}, {0, Device::cpu()}, {100, Device::cpu()}});
  auto memory = PlannedMemory::allocate(plan, PlannedMemoryOptions());
  ASSERT_TRUE(memory.ok()) << memory.error();
  ASSERT_EQ((*memory)->num_buffers(), 3u);
  EXPECT_EQ((*memory)->buffer(0).size(), 24u);
  EXPECT_TRUE((*memory)->buffer(1).empty());
  EXPECT_EQ((*memory)->buffer(2).size(), 100u);
  EXPECT_TRUE(is_aligned((*memory)->buffer(2).data(), kDefaultAlignment));
  for (uint8_t byte :
       std::vector<uint8_t>((*memory)->buffer(2).begin(), (*memory)->buffer(2).end())) {
    ASSERT_EQ(byte, 0);
  }
  EXPECT_EQ((*memory)->num_device_allocations(), 0u);
  EXPECT_EQ(tracking().allocate_calls(), 0u);
}

TEST_F(PlannedMemoryTest, DeviceBuffersGoThroughTheRegisteredAllocatorWithOwners) {
  MethodPlan plan = plan_with(
      {{8, Device::cpu()}, {32, Device::cuda(3)}, {0, Device::cuda(1)}, {64, Device::cuda(0)}});
  {
    auto memory = PlannedMemory::allocate(plan, PlannedMemoryOptions());
    ASSERT_TRUE(memory.ok()) << memory.error();
    EXPECT_EQ((*memory)->num_device_allocations(), 2u);
    std::vector<AllocationRecord> ledger = tracking().ledger();
    ASSERT_EQ(ledger.size(), 2u);
    EXPECT_EQ(ledger[0].device, Device::cuda(3));
    EXPECT_EQ(ledger[0].size, 32u);
    EXPECT_EQ(ledger[0].owner, "m/buffer 1");
    EXPECT_EQ(ledger[1].device, Device::cuda(0));
    EXPECT_EQ(ledger[1].size, 64u);
    EXPECT_EQ(ledger[1].owner, "m/buffer 3");
    EXPECT_EQ((*memory)->buffer(1).data(), ledger[0].ptr);
    EXPECT_EQ((*memory)->device(2), Device::cuda(1));
  }
  EXPECT_EQ(tracking().live_count(), 0u);
}

TEST_F(PlannedMemoryTest, FailureFreesWhatWasAllocatedBefore) {
  MethodPlan plan =
      plan_with({{16, Device::cuda(0)}, {16, Device::cuda(1)}, {16, Device::cuda(2)}});
  ASSERT_TRUE(tracking().fail_allocations_on(2).ok());
  auto memory = PlannedMemory::allocate(plan, PlannedMemoryOptions());
  ASSERT_FALSE(memory.ok());
  EXPECT_EQ(memory.code(), ErrorCode::MemoryAllocationFailed);
  EXPECT_EQ(memory.error().message().rfind("method 'm': buffer 2 (16 bytes on cuda:2): ", 0), 0u)
      << memory.error().message();
  EXPECT_EQ(tracking().ledger().size(), 2u);
  EXPECT_EQ(tracking().live_count(), 0u);
}

TEST_F(PlannedMemoryTest, HugeHostBufferFailsCleanly) {
  MethodPlan plan = plan_with({{uint64_t{1} << 62, Device::cpu()}});
  auto memory = PlannedMemory::allocate(plan, PlannedMemoryOptions());
  ASSERT_FALSE(memory.ok());
  EXPECT_EQ(memory.code(), ErrorCode::MemoryAllocationFailed);
}

}  // namespace
}  // namespace devplan
