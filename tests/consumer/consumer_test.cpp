// Uses the installed devplan as an outside project would: the tracking allocator, the
// leak-checked fixture and DeviceMemoryBuffer, all reached through find_package(devplan).
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <fixtures/leak_checked_test.h>
#include <mocks/tracking_device_allocator.h>
#include <runtime_ext/core/allocation_owner.h>
#include <runtime_ext/core/device_memory_buffer.h>

namespace {

using devplan::AllocationRecord;
using devplan::Device;
using devplan::DeviceMemoryBuffer;
using devplan::DeviceType;
using devplan::ScopedAllocationOwner;

class ConsumerTest : public devplan::LeakCheckedTest {};

TEST_F(ConsumerTest, AllocatesRecordsAndFreesThroughTheInstalledPackage) {
  {
    ScopedAllocationOwner owner("consumer/buffer 0");
    devplan::Result<DeviceMemoryBuffer> buffer =
        DeviceMemoryBuffer::create(48, DeviceType::CUDA, 0);
    ASSERT_TRUE(buffer.ok()) << buffer.error().message();
    EXPECT_EQ(buffer->size(), 48u);
    EXPECT_EQ(buffer->device(), Device::cuda(0));
    EXPECT_EQ(buffer->allocator(), &tracking());

    const std::vector<AllocationRecord> live = tracking().live_allocations();
    ASSERT_EQ(live.size(), 1u);
    EXPECT_EQ(live[0].seq, 1u);
    EXPECT_EQ(live[0].device, Device::cuda(0));
    EXPECT_EQ(live[0].size, 48u);
    EXPECT_EQ(live[0].ptr, buffer->data());
    EXPECT_EQ(tracking().leak_report_lines(),
              std::vector<std::string>{"#1 cuda:0 48 B align 16 owner consumer/buffer 0"});
    EXPECT_FALSE(check_device_memory());  // one allocation is live right now
  }
  EXPECT_EQ(tracking().live_count(), 0u);
  EXPECT_EQ(tracking().stats(0).frees, 1u);
  EXPECT_EQ(tracking().stats(0).peak_bytes, 48u);
  EXPECT_TRUE(check_device_memory());
}

TEST_F(ConsumerTest, ReportsAnInjectedFaultAsAnError) {
  tracking().fail_allocation_at(1);
  devplan::Result<DeviceMemoryBuffer> buffer = DeviceMemoryBuffer::create(16, DeviceType::CUDA, 0);
  ASSERT_FALSE(buffer.ok());
  EXPECT_EQ(buffer.error().code(), devplan::ErrorCode::MemoryAllocationFailed);
  EXPECT_EQ(tracking().failed_allocations().size(), 1u);
  EXPECT_EQ(tracking().live_count(), 0u);
}

}  // namespace
