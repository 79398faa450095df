#include <mocks/limiting_device_allocator.h>

#include <gtest/gtest.h>

#include <mocks/block_store_device_allocator.h>

namespace devplan {
namespace {

TEST(LimitingDeviceAllocatorTest, CapacityLimitsLiveBytesPerDevice) {
  BlockStoreDeviceAllocator host;
  LimitingDeviceAllocator limited(&host);
  ASSERT_TRUE(limited.set_capacity(0, 1000).ok());
  void* big = *limited.allocate(960, 0);
  EXPECT_EQ(limited.live_bytes(0), 960u);
  Result<void*> over = limited.allocate(64, 0);
  EXPECT_EQ(over.code(), ErrorCode::MemoryAllocationFailed);
  EXPECT_EQ(over.error().message(),
            "LimitingDeviceAllocator::allocate: out of memory on cuda:0: requested 64 bytes with "
            "960 bytes live, capacity 1000 bytes");
  void* other = *limited.allocate(4000, 1);  // cuda:1 is unlimited
  limited.deallocate(big, 0);                // a plain free: the size comes from the upstream
  EXPECT_EQ(limited.live_bytes(0), 0u);
  void* fits = *limited.allocate(1000, 0);
  EXPECT_EQ(limited.set_capacity(-1, 10).message(),
            "LimitingDeviceAllocator::set_capacity: device cuda:-1 has a negative index");
  limited.clear_capacities();
  void* unlimited = *limited.allocate(5000, 0);
  limited.deallocate(other, 1);
  limited.deallocate(fits, 0);
  limited.deallocate(unlimited, 0);
  EXPECT_EQ(limited.live_bytes(0), 0u);
  EXPECT_EQ(limited.live_bytes(1), 0u);
}

TEST(LimitingDeviceAllocatorTest, RefusesAllocationsAboveTheLargestSize) {
  BlockStoreDeviceAllocator host;
  LimitingDeviceAllocator limited(&host, "Sim");
  EXPECT_EQ(limited.max_allocation_bytes(), uint64_t{1} << 32);
  limited.set_max_allocation_bytes(100);
  Result<void*> p = limited.allocate(100, 0);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(limited.allocate(101, 2).error().message(),
            "Sim::allocate: 101 bytes on cuda:2 exceed the largest simulated allocation (100 "
            "bytes)");
  limited.deallocate_sized(*p, 100, 0);
  EXPECT_EQ(limited.live_bytes(0), 0u);
}

}  // namespace
}  // namespace devplan
