#include <mocks/statistics_device_allocator.h>

#include <gtest/gtest.h>

#include <mocks/block_store_device_allocator.h>

namespace devplan {
namespace {

TEST(StatisticsDeviceAllocatorTest, CountsAllocationsFreesAndFailures) {
  BlockStoreDeviceAllocator host;
  StatisticsDeviceAllocator counted(&host);
  void* a = *counted.allocate(100, 0);
  void* b = *counted.allocate(50, 0);
  EXPECT_FALSE(counted.allocate(8, 0, 3).ok());  // the upstream refuses the alignment
  counted.deallocate(a, 5);                      // named the wrong index: counted on cuda:0
  counted.deallocate(a, 0);                      // no longer live: not counted
  void* c = *counted.allocate(30, 1);
  DeviceAllocationStats s0 = counted.stats(0);
  EXPECT_EQ(s0.current_bytes, 50u);
  EXPECT_EQ(s0.peak_bytes, 150u);
  EXPECT_EQ(s0.total_bytes, 150u);
  EXPECT_EQ(s0.current_allocations, 1u);
  EXPECT_EQ(s0.peak_allocations, 2u);
  EXPECT_EQ(s0.total_allocations, 2u);
  EXPECT_EQ(s0.frees, 1u);
  EXPECT_EQ(s0.failed_allocations, 1u);
  EXPECT_EQ(counted.stats(5).frees, 0u);
  EXPECT_EQ(counted.stats(1).total_bytes, 30u);
  EXPECT_EQ(counted.stats(-1).total_allocations, 0u);
  counted.clear();
  EXPECT_EQ(counted.stats(0).peak_bytes, 0u);
  counted.deallocate(b, 0);
  counted.deallocate(c, 1);
}

TEST(StatisticsDeviceAllocatorTest, CountsPerformedCopiesWithBytes) {
  BlockStoreDeviceAllocator host;
  StatisticsDeviceAllocator counted(&host);
  void* p = *counted.allocate(16, 2);
  uint8_t bytes[16] = {};
  ASSERT_TRUE(counted.copy_host_to_device(p, bytes, 8, 2).ok());
  ASSERT_TRUE(counted.copy_device_to_host(bytes, p, 16, 2).ok());
  ASSERT_TRUE(counted.copy_device_to_host(bytes, p, 0, 2).ok());  // zero bytes: not counted
  DeviceAllocationStats s = counted.stats(2);
  EXPECT_EQ(s.host_to_device_copies, 1u);
  EXPECT_EQ(s.host_to_device_bytes, 8u);
  EXPECT_EQ(s.device_to_host_copies, 1u);
  EXPECT_EQ(s.device_to_host_bytes, 16u);
  counted.deallocate(p, 2);
}

}  // namespace
}  // namespace devplan
