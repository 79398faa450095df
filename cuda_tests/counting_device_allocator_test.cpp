// CountingDeviceAllocator, the GPU tests' forwarding adaptor, checked over a simulated upstream
// (TrackingDeviceAllocator), so these tests need no GPU and run everywhere.
#include "counting_device_allocator.h"

#include <gtest/gtest.h>
#include <mocks/tracking_device_allocator.h>

#include <runtime_ext/core/text_join.h>

#include <string>
#include <vector>

namespace devplan::cuda_testing {
namespace {

class CountingDeviceAllocatorTest : public ::testing::Test {
 protected:
  TrackingDeviceAllocator upstream_;
  CountingDeviceAllocator counting_{upstream_};
};

TEST_F(CountingDeviceAllocatorTest, ForwardsAllocationsAndCountsTheLiveOnes) {
  EXPECT_EQ(counting_.device_type(), DeviceType::CUDA);
  Result<void*> p = counting_.allocate(48, 0);
  Result<void*> q = counting_.allocate(100, 3, 256);
  Result<void*> r = counting_.allocate(16, 0);
  ASSERT_TRUE(p.ok() && q.ok() && r.ok());
  EXPECT_EQ(counting_.allocate_calls(), 3u);
  EXPECT_EQ(counting_.successful_allocations(), 3u);
  EXPECT_EQ(counting_.failed_allocations(), 0u);
  EXPECT_EQ(counting_.live_allocations(), 3u);
  EXPECT_EQ(counting_.live_allocations_on(0), 2u);
  EXPECT_EQ(counting_.live_allocations_on(3), 1u);
  EXPECT_EQ(counting_.live_allocations_on(1), 0u);
  EXPECT_EQ(counting_.live_bytes(), 164u);
  // The upstream saw the same calls, with the alignment passed through.
  const std::vector<AllocationRecord> ledger = upstream_.ledger();
  ASSERT_EQ(ledger.size(), 3u);
  EXPECT_EQ(ledger[1].ptr, *q);
  EXPECT_EQ(ledger[1].device, Device::cuda(3));
  EXPECT_EQ(ledger[1].alignment, 256u);

  counting_.deallocate(*q, 3);
  EXPECT_EQ(counting_.live_allocations(), 2u);
  EXPECT_EQ(counting_.live_allocations_on(3), 0u);
  EXPECT_EQ(counting_.live_bytes(), 64u);
  counting_.deallocate(*p, 0);
  counting_.deallocate(*r, 0);
  counting_.deallocate(nullptr, 0);
  EXPECT_EQ(counting_.live_allocations(), 0u);
  EXPECT_EQ(counting_.frees(), 3u);
  EXPECT_EQ(upstream_.live_count(), 0u);
  EXPECT_FALSE(upstream_.has_misuse()) << upstream_.misuse_report();
  EXPECT_EQ(counting_.misuse_count(), 0u);
  EXPECT_EQ(counting_.misuse_report(), "");
}

TEST_F(CountingDeviceAllocatorTest, InjectedFailureNeverReachesTheUpstream) {
  counting_.fail_allocation_at(2);
  Result<void*> first = counting_.allocate(48, 0);
  ASSERT_TRUE(first.ok());
  Result<void*> second = counting_.allocate(64, 1);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.code(), ErrorCode::MemoryAllocationFailed);
  EXPECT_EQ(second.error().message(),
            "CountingDeviceAllocator: injected failure of allocate call #2 (64 bytes on cuda:1)");
  EXPECT_EQ(upstream_.allocate_calls(), 1u);
  Result<void*> third = counting_.allocate(32, 0);
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(counting_.allocate_calls(), 3u);
  EXPECT_EQ(counting_.successful_allocations(), 2u);
  EXPECT_EQ(counting_.failed_allocations(), 1u);
  EXPECT_EQ(counting_.live_allocations(), 2u);

  // A new number replaces the old one; 0 turns injection off.
  counting_.fail_allocation_at(5);
  EXPECT_TRUE(counting_.allocate(8, 0).ok());   // call 4
  EXPECT_FALSE(counting_.allocate(8, 0).ok());  // call 5
  counting_.fail_allocation_at(0);
  EXPECT_TRUE(counting_.allocate(8, 0).ok());  // call 6
  EXPECT_EQ(upstream_.allocate_calls(), 4u);
}

TEST_F(CountingDeviceAllocatorTest, UpstreamErrorsAreReturnedUnchangedAndCounted) {
  upstream_.fail_allocation_at(1);
  Result<void*> p = counting_.allocate(48, 2);
  ASSERT_FALSE(p.ok());
  ASSERT_EQ(upstream_.failed_allocations().size(), 1u);
  EXPECT_EQ(p.code(), upstream_.failed_allocations()[0].code);
  EXPECT_EQ(p.error().message(), upstream_.failed_allocations()[0].reason);
  EXPECT_EQ(counting_.failed_allocations(), 1u);
  EXPECT_EQ(counting_.successful_allocations(), 0u);
  EXPECT_EQ(counting_.live_allocations(), 0u);
}

TEST_F(CountingDeviceAllocatorTest, DoubleAndUnknownFreesAreRecordedAndNotForwarded) {
  Result<void*> p = counting_.allocate(48, 0);
  ASSERT_TRUE(p.ok());
  counting_.deallocate(*p, 0);
  counting_.deallocate(*p, 0);  // double free
  int not_allocated = 0;
  counting_.deallocate(&not_allocated, 1);
  EXPECT_EQ(counting_.frees(), 1u);
  EXPECT_EQ(counting_.misuse_count(), 2u);
  EXPECT_EQ(counting_.misuse_report(), "free of unknown pointer " + pointer_text(*p) +
                                           " on cuda:0\nfree of unknown pointer " +
                                           pointer_text(&not_allocated) + " on cuda:1\n");
  // Neither bad free reached the upstream.
  EXPECT_FALSE(upstream_.has_misuse()) << upstream_.misuse_report();
  EXPECT_EQ(upstream_.stats(0).frees, 1u);
}

TEST_F(CountingDeviceAllocatorTest, WrongIndexFreeIsRecordedAndForwardedWithTheRightIndex) {
  ASSERT_TRUE(counting_.allocate(16, 0).ok());
  Result<void*> p = counting_.allocate(48, 2);
  ASSERT_TRUE(p.ok());
  counting_.deallocate(*p, 5);
  EXPECT_EQ(counting_.misuse_report(), "free on cuda:5 of call #2 (48 bytes on cuda:2)\n");
  EXPECT_EQ(counting_.live_allocations(), 1u);
  EXPECT_EQ(upstream_.live_count(), 1u);
  EXPECT_FALSE(upstream_.has_misuse()) << upstream_.misuse_report();
}

TEST_F(CountingDeviceAllocatorTest, CopiesAreForwardedAndCounted) {
  Result<void*> p = counting_.allocate(16, 1);
  ASSERT_TRUE(p.ok());
  const std::vector<uint8_t> in = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  std::vector<uint8_t> out(16, 0);
  ASSERT_TRUE(counting_.copy_host_to_device(*p, in.data(), 16, 1).ok());
  ASSERT_TRUE(counting_.copy_device_to_host(out.data(), *p, 16, 1).ok());
  EXPECT_EQ(out, in);
  EXPECT_EQ(counting_.host_to_device_copies(), 1u);
  EXPECT_EQ(counting_.device_to_host_copies(), 1u);
  // Upstream errors come back unchanged.
  const Error wrong_device = counting_.copy_device_to_host(out.data(), *p, 16, 0);
  EXPECT_EQ(wrong_device.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(upstream_.misuse().size(), 1u);
  EXPECT_EQ(counting_.device_to_host_copies(), 2u);
  counting_.deallocate(*p, 1);
}

}  // namespace
}  // namespace devplan::cuda_testing
