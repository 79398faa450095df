#include <mocks/validating_device_allocator.h>

#include <gtest/gtest.h>

#include <mocks/block_store_device_allocator.h>

namespace devplan {
namespace {

TEST(ValidatingDeviceAllocatorTest, RejectsBadAlignmentsAndIndicesBeforeTheUpstream) {
  BlockStoreDeviceAllocator host;
  ValidatingDeviceAllocator devices(&host);
  EXPECT_EQ(devices.allocate(48, 0, 0).error().message(),
            "ValidatingDeviceAllocator::allocate: alignment 0 for 48 bytes on cuda:0 is not a "
            "power of two");
  Result<void*> huge = devices.allocate(48, 0, size_t{1} << 25);
  EXPECT_EQ(huge.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(huge.error().message(),
            "ValidatingDeviceAllocator::allocate: alignment 33554432 for 48 bytes on cuda:0 "
            "exceeds the simulated maximum 16777216");
  Result<void*> negative = devices.allocate(8, -3);
  EXPECT_EQ(negative.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(negative.error().message(),
            "ValidatingDeviceAllocator::allocate: device cuda:-3 has a negative index");
  Result<void*> fine = devices.allocate(8, 127, ValidatingDeviceAllocator::kMaxAlignment);
  ASSERT_TRUE(fine.ok()) << fine.error();
  devices.deallocate(*fine, 127);
  EXPECT_FALSE(host.find_live_block(*fine).has_value());
}

TEST(ValidatingDeviceAllocatorTest, RestrictsTheDeviceSet) {
  BlockStoreDeviceAllocator host;
  ValidatingDeviceAllocator devices(&host, "Sim");
  ASSERT_TRUE(devices.set_device_count(2).ok());
  EXPECT_TRUE(devices.is_device_available(1));
  EXPECT_FALSE(devices.is_device_available(2));
  EXPECT_FALSE(devices.is_device_available(-1));
  EXPECT_EQ(devices.allocate(8, 2).error().message(),
            "Sim::allocate: device cuda:2 is not simulated (simulated: cuda:0, cuda:1)");
  ASSERT_TRUE(devices.restrict_devices({5, 3}).ok());
  EXPECT_EQ(devices.allocate(8, 0).error().message(),
            "Sim::allocate: device cuda:0 is not simulated (simulated: cuda:3, cuda:5)");
  EXPECT_EQ(devices.restrict_devices({1, -4}).message(),
            "Sim::restrict_devices: device cuda:-4 has a negative index");
  EXPECT_TRUE(devices.is_device_available(5));  // unchanged
  EXPECT_EQ(devices.set_device_count(129).message(),
            "Sim::set_device_count: 129 devices requested; the count must be from 0 to 128");
  ASSERT_TRUE(devices.set_device_count(0).ok());
  EXPECT_EQ(devices.allocate(8, 0).error().message(),
            "Sim::allocate: device cuda:0 is not simulated (simulated: none)");
  devices.allow_all_devices();
  EXPECT_TRUE(devices.is_device_available(127));
}

TEST(ValidatingDeviceAllocatorTest, DeviceCountOf128IsAcceptedAndReachesIndex127) {
  BlockStoreDeviceAllocator host;
  ValidatingDeviceAllocator devices(&host, "Sim");
  ASSERT_TRUE(devices.set_device_count(1).ok());
  ASSERT_TRUE(devices.set_device_count(128).ok());
  EXPECT_TRUE(devices.is_device_available(127));
  Result<void*> last = devices.allocate(8, 127);
  ASSERT_TRUE(last.ok()) << last.error();
  devices.deallocate(*last, 127);
  Error negative = devices.set_device_count(-1);
  EXPECT_EQ(negative.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(negative.message(),
            "Sim::set_device_count: -1 devices requested; the count must be from 0 to 128");
  EXPECT_TRUE(devices.is_device_available(127));  // unchanged
}

}  // namespace
}  // namespace devplan
