#include <mocks/mock_device_allocator.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <utility>

#include <runtime_ext/core/allocation_owner.h>
#include <runtime_ext/core/device_memory_buffer.h>

namespace devplan {
namespace {

using ::testing::_;
using ::testing::NiceMock;
using ::testing::Return;
using ::testing::StrictMock;

TEST(MockDeviceAllocatorTest, DelegatesToAnOwnedTrackingAllocatorByDefault) {
  NiceMock<MockDeviceAllocator> mock;
  EXPECT_EQ(mock.device_type(), DeviceType::CUDA);
  EXPECT_EQ(mock.tracking().device_type(), DeviceType::CUDA);

  Result<void*> p = mock.allocate(48, 1, 32);
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_TRUE(is_aligned(*p, 32));
  const uint8_t in[4] = {1, 2, 3, 4};
  uint8_t out[4] = {};
  EXPECT_TRUE(mock.copy_host_to_device(*p, in, 4, 1).ok());
  EXPECT_TRUE(mock.copy_device_to_host(out, *p, 4, 1).ok());
  EXPECT_EQ(std::memcmp(in, out, 4), 0);
  EXPECT_EQ(mock.tracking().leak_report(), "#1 cuda:1 48 B align 32 owner -\n");
  mock.deallocate(*p, 1);
  mock.deallocate(*p, 1);  // delegated, so the tracking allocator sees the double free
  EXPECT_EQ(mock.tracking().misuse_report(), "double free of #1 cuda:1 48 B owner -\n");
  EXPECT_FALSE(mock.tracking().has_leaks());
}

TEST(MockDeviceAllocatorTest, DelegatesToAGivenTrackingAllocator) {
  TrackingDeviceAllocator cpu(DeviceType::CPU);
  NiceMock<MockDeviceAllocator> mock(&cpu);
  EXPECT_EQ(&mock.tracking(), &cpu);
  EXPECT_EQ(mock.device_type(), DeviceType::CPU);
  Result<void*> p = mock.allocate(8, 0, 8);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(cpu.live_count(), 1u);
  mock.deallocate(*p, 0);
  EXPECT_EQ(cpu.live_count(), 0u);
  EXPECT_EQ(cpu.stats(0).frees, 1u);
}

TEST(MockDeviceAllocatorTest, CountsCallsThroughTheRegistryWhileDelegating) {
  StrictMock<MockDeviceAllocator> mock;
  EXPECT_CALL(mock, device_type()).Times(::testing::AnyNumber());
  EXPECT_CALL(mock, allocate(48, 0, kDefaultAlignment)).Times(1);
  EXPECT_CALL(mock, allocate(16, 2, kDefaultAlignment)).Times(1);
  EXPECT_CALL(mock, deallocate(_, 0)).Times(1);
  EXPECT_CALL(mock, deallocate(_, 2)).Times(1);
  DeviceAllocatorRegistry registry;
  ASSERT_TRUE(registry.register_allocator(&mock).ok());
  {
    ScopedAllocationOwner owner("forward/buffer 1");
    Result<DeviceMemoryBuffer> a =
        DeviceMemoryBuffer::create(48, DeviceType::CUDA, 0, kDefaultAlignment, registry);
    Result<DeviceMemoryBuffer> b =
        DeviceMemoryBuffer::create(16, DeviceType::CUDA, 2, kDefaultAlignment, registry);
    ASSERT_TRUE(a.ok()) << a.error();
    ASSERT_TRUE(b.ok()) << b.error();
    // A zero-byte buffer makes no allocator call (StrictMock would fail otherwise).
    Result<DeviceMemoryBuffer> empty =
        DeviceMemoryBuffer::create(0, DeviceType::CUDA, 0, kDefaultAlignment, registry);
    ASSERT_TRUE(empty.ok());
    EXPECT_EQ(mock.tracking().leak_report(),
              "#1 cuda:0 48 B align 16 owner forward/buffer 1\n"
              "#2 cuda:2 16 B align 16 owner forward/buffer 1\n");
  }
  EXPECT_FALSE(mock.tracking().has_leaks());
  EXPECT_FALSE(mock.tracking().has_misuse());
}

TEST(MockDeviceAllocatorTest, AnExpectationOverridesTheDelegation) {
  NiceMock<MockDeviceAllocator> mock;
  EXPECT_CALL(mock, allocate(48, 0, kDefaultAlignment))
      .WillOnce(Return(Result<void*>(Error(ErrorCode::MemoryAllocationFailed, "scripted"))))
      .WillRepeatedly(::testing::DoDefault());
  DeviceAllocatorRegistry registry;
  ASSERT_TRUE(registry.register_allocator(&mock).ok());
  Result<DeviceMemoryBuffer> failed =
      DeviceMemoryBuffer::create(48, DeviceType::CUDA, 0, kDefaultAlignment, registry);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.code(), ErrorCode::MemoryAllocationFailed);
  EXPECT_EQ(failed.error().message(), "allocating 48 bytes on cuda:0: scripted");
  EXPECT_TRUE(mock.tracking().ledger().empty());
  EXPECT_TRUE(mock.tracking().failed_allocations().empty());

  // The next call falls back to the default action and reaches the tracking allocator.
  Result<DeviceMemoryBuffer> ok =
      DeviceMemoryBuffer::create(48, DeviceType::CUDA, 0, kDefaultAlignment, registry);
  ASSERT_TRUE(ok.ok()) << ok.error();
  EXPECT_EQ(mock.tracking().live_count(), 1u);
}

}  // namespace
}  // namespace devplan
