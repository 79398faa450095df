#include <mocks/failure_injecting_device_allocator.h>

#include <gtest/gtest.h>

#include <mocks/block_store_device_allocator.h>

namespace devplan {
namespace {

TEST(FailureInjectingDeviceAllocatorTest, AloneItNumbersTheCallsItSees) {
  BlockStoreDeviceAllocator host;
  FailureInjectingDeviceAllocator faults(&host);
  faults.fail_allocation_at(2);
  faults.fail_allocation_at(0);  // ignored
  Result<void*> first = faults.allocate(8, 0);
  Result<void*> second = faults.allocate(48, 1);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(second.code(), ErrorCode::MemoryAllocationFailed);
  EXPECT_EQ(second.error().message(),
            "FailureInjectingDeviceAllocator::allocate: injected fault: allocation #2 of 48 "
            "bytes on cuda:1 fails (fail_allocation_at 2)");
  faults.fail_allocations_from(4);
  Result<void*> third = faults.allocate(8, 0);
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(faults.allocate(8, 0).error().message(),
            "FailureInjectingDeviceAllocator::allocate: injected fault: allocation #4 of 8 bytes "
            "on cuda:0 fails (fail_allocations_from 4)");
  faults.clear_faults();
  Result<void*> fifth = faults.allocate(8, 0);
  ASSERT_TRUE(fifth.ok());
  for (void* p : {*first, *third, *fifth}) faults.deallocate(p, 0);
}

TEST(FailureInjectingDeviceAllocatorTest, ASharedSequenceNumbersTheCalls) {
  BlockStoreDeviceAllocator host;
  AllocationSequence sequence;
  FailureInjectingDeviceAllocator faults(&host, &sequence, "Sim");
  faults.fail_allocation_at(3);
  sequence.next();
  sequence.next();
  sequence.next();  // calls 1 and 2 never reached this layer
  EXPECT_EQ(faults.allocate(8, 0).error().message(),
            "Sim::allocate: injected fault: allocation #3 of 8 bytes on cuda:0 fails "
            "(fail_allocation_at 3)");
  EXPECT_EQ(sequence.count(), 3u);
}

TEST(FailureInjectingDeviceAllocatorTest, FailsOneDeviceAndChosenCopyDirections) {
  BlockStoreDeviceAllocator host;
  FailureInjectingDeviceAllocator faults(&host);
  ASSERT_TRUE(faults.fail_allocations_on(1).ok());
  // -1 is the first index refused.
  EXPECT_EQ(faults.fail_allocations_on(-1).message(),
            "FailureInjectingDeviceAllocator::fail_allocations_on: device cuda:-1 has a negative "
            "index");
  EXPECT_EQ(faults.fail_allocations_on(-2).message(),
            "FailureInjectingDeviceAllocator::fail_allocations_on: device cuda:-2 has a negative "
            "index");
  EXPECT_EQ(faults.allocate(8, 1).error().message(),
            "FailureInjectingDeviceAllocator::allocate: injected fault: allocation #1 of 8 bytes "
            "on cuda:1 fails (fail_allocations_on cuda:1)");
  void* p = *faults.allocate(8, 0);
  uint8_t host_bytes[8] = {};
  faults.fail_copies(CopyDirection::DeviceToHost);
  EXPECT_TRUE(faults.copy_host_to_device(p, host_bytes, 8, 0).ok());
  Error d2h = faults.copy_device_to_host(host_bytes, p, 8, 0);
  EXPECT_EQ(d2h.code(), ErrorCode::Internal);
  EXPECT_EQ(d2h.message(),
            "FailureInjectingDeviceAllocator::copy_device_to_host: injected fault: copy of 8 B "
            "from cuda:0 fails (fail_copies)");
  faults.fail_copies(CopyDirection::Both);
  EXPECT_EQ(faults.copy_host_to_device(p, host_bytes, 8, 0).message(),
            "FailureInjectingDeviceAllocator::copy_host_to_device: injected fault: copy of 8 B "
            "to cuda:0 fails (fail_copies)");
  faults.deallocate(p, 0);
}

TEST(FailureInjectingDeviceAllocatorTest, FailedDeviceFaultNamesTheCallNumberAndTheDevice) {
  BlockStoreDeviceAllocator host;
  FailureInjectingDeviceAllocator faults(&host);
  Result<void*> first = faults.allocate(8, 0);  // call #1
  ASSERT_TRUE(first.ok()) << first.error();
  ASSERT_TRUE(faults.fail_allocations_on(3).ok());
  Result<void*> on3 = faults.allocate(8, 3);  // call #2 on cuda:3
  ASSERT_FALSE(on3.ok());
  EXPECT_EQ(on3.code(), ErrorCode::MemoryAllocationFailed);
  EXPECT_EQ(on3.error().message(),
            "FailureInjectingDeviceAllocator::allocate: injected fault: allocation #2 of 8 bytes "
            "on cuda:3 fails (fail_allocations_on cuda:3)");
  Result<void*> on2 = faults.allocate(8, 2);  // call #3: only cuda:3 fails
  ASSERT_TRUE(on2.ok()) << on2.error();
  faults.deallocate(*first, 0);
  faults.deallocate(*on2, 2);
}

TEST(FailureInjectingDeviceAllocatorTest, FailedCopiesSkipZeroBytesAndFailFromOneByte) {
  BlockStoreDeviceAllocator host;
  FailureInjectingDeviceAllocator faults(&host);
  void* p = *faults.allocate(8, 0);
  uint8_t host_bytes[8] = {};
  faults.fail_copies(CopyDirection::Both);
  EXPECT_TRUE(faults.copy_host_to_device(p, host_bytes, 0, 0).ok());
  EXPECT_TRUE(faults.copy_device_to_host(host_bytes, p, 0, 0).ok());
  Error to_device = faults.copy_host_to_device(p, host_bytes, 1, 0);
  EXPECT_EQ(to_device.code(), ErrorCode::Internal);
  EXPECT_EQ(to_device.message(),
            "FailureInjectingDeviceAllocator::copy_host_to_device: injected fault: copy of 1 B to "
            "cuda:0 fails (fail_copies)");
  Error to_host = faults.copy_device_to_host(host_bytes, p, 1, 0);
  EXPECT_EQ(to_host.code(), ErrorCode::Internal);
  EXPECT_EQ(to_host.message(),
            "FailureInjectingDeviceAllocator::copy_device_to_host: injected fault: copy of 1 B "
            "from cuda:0 fails (fail_copies)");
  faults.deallocate(p, 0);
}

}  // namespace
}  // namespace devplan
