// TrackingDeviceAllocator: injected faults, capacities, the largest allocation and the
// device set.
#include <mocks/tracking_device_allocator.h>

#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <runtime_ext/core/allocation_owner.h>
#include <runtime_ext/core/device_memory_buffer.h>

#include "tracking_test_helpers.h"

namespace devplan {
namespace {

using tracking_test::hex;
using tracking_test::must_allocate;
using tracking_test::peek_bytes;

// --- fault injection ----------------------------------------------------------------------------

TEST(TrackingDeviceAllocatorTest, FailAllocationAtFailsExactlyThatCall) {
  TrackingDeviceAllocator a;
  a.fail_allocation_at(2);
  a.fail_allocation_at(0);  // ignored
  void* first = must_allocate(a, 8);
  Result<void*> second = [&] {
    ScopedAllocationOwner owner("forward/buffer 2");
    return a.allocate(48, 1);
  }();
  void* third = must_allocate(a, 8);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.code(), ErrorCode::MemoryAllocationFailed);
  EXPECT_EQ(second.error().message(),
            "TrackingDeviceAllocator::allocate: injected fault: allocation #2 of 48 bytes on "
            "cuda:1 fails (fail_allocation_at 2)");
  std::vector<AllocationRecord> ledger = a.ledger();
  ASSERT_EQ(ledger.size(), 2u);
  EXPECT_EQ(ledger[0].seq, 1u);
  EXPECT_EQ(ledger[1].seq, 3u);
  std::vector<FailedAllocation> failed = a.failed_allocations();
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].seq, 2u);
  EXPECT_EQ(failed[0].device, Device::cuda(1));
  EXPECT_EQ(failed[0].size, 48u);
  EXPECT_EQ(failed[0].alignment, kDefaultAlignment);
  EXPECT_EQ(failed[0].owner, "forward/buffer 2");
  EXPECT_EQ(failed[0].code, ErrorCode::MemoryAllocationFailed);
  EXPECT_EQ(failed[0].reason, second.error().message());
  EXPECT_EQ(a.stats(1).failed_allocations, 1u);
  EXPECT_EQ(a.stats(1).total_allocations, 0u);
  EXPECT_EQ(a.allocate_calls(), 3u);
  a.deallocate(first, 0);
  a.deallocate(third, 0);
}

TEST(TrackingDeviceAllocatorTest, FailAllocationsFromFailsEveryLaterCall) {
  TrackingDeviceAllocator a;
  a.fail_allocations_from(3);
  void* p1 = must_allocate(a, 8);
  void* p2 = must_allocate(a, 8);
  for (int i = 0; i < 3; ++i) {
    Result<void*> r = a.allocate(8, 0);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message(),
              "TrackingDeviceAllocator::allocate: injected fault: "
              "allocation #" +
                  std::to_string(3 + i) + " of 8 bytes on cuda:0 fails (fail_allocations_from 3)");
  }
  EXPECT_EQ(a.failed_allocations().size(), 3u);
  a.fail_allocations_from(0);
  void* p6 = must_allocate(a, 8);
  EXPECT_EQ(a.ledger().back().seq, 6u);
  for (void* p : {p1, p2, p6}) a.deallocate(p, 0);
}

TEST(TrackingDeviceAllocatorTest, FailAllocationsOnFailsOneDevice) {
  TrackingDeviceAllocator a;
  ASSERT_TRUE(a.fail_allocations_on(1).ok());
  Error negative = a.fail_allocations_on(-2);
  EXPECT_EQ(negative.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(negative.message(),
            "TrackingDeviceAllocator::fail_allocations_on: device cuda:-2 has a negative index");
  Result<void*> on1 = a.allocate(8, 1);
  ASSERT_FALSE(on1.ok());
  EXPECT_EQ(on1.code(), ErrorCode::MemoryAllocationFailed);
  EXPECT_EQ(on1.error().message(),
            "TrackingDeviceAllocator::allocate: injected fault: "
            "allocation #1 of 8 bytes on cuda:1 fails "
            "(fail_allocations_on cuda:1)");
  void* on0 = must_allocate(a, 8, 0);
  void* on2 = must_allocate(a, 8, 2);
  a.clear_faults();
  void* again = must_allocate(a, 8, 1);
  for (auto [p, i] : {std::pair<void*, DeviceIndex>{on0, 0}, {on2, 2}, {again, 1}}) {
    a.deallocate(p, i);
  }
  EXPECT_FALSE(a.has_leaks());
  EXPECT_FALSE(a.has_misuse());
}

TEST(TrackingDeviceAllocatorTest, FailedDeviceFaultNamesTheCallNumberAndTheDevice) {
  TrackingDeviceAllocator a;
  void* first = must_allocate(a, 8, 0);  // call #1
  ASSERT_TRUE(a.fail_allocations_on(3).ok());
  Result<void*> on3 = a.allocate(8, 3);  // call #2 on cuda:3
  ASSERT_FALSE(on3.ok());
  EXPECT_EQ(on3.code(), ErrorCode::MemoryAllocationFailed);
  EXPECT_EQ(on3.error().message(),
            "TrackingDeviceAllocator::allocate: injected fault: allocation #2 of 8 bytes on "
            "cuda:3 fails (fail_allocations_on cuda:3)");
  std::vector<FailedAllocation> failed = a.failed_allocations();
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].seq, 2u);
  a.deallocate(first, 0);
  EXPECT_FALSE(a.has_misuse());
}

TEST(TrackingDeviceAllocatorTest, ClearFaultsRemovesEveryInjectedFault) {
  TrackingDeviceAllocator a;
  a.fail_allocation_at(1);
  a.fail_allocations_from(1);
  ASSERT_TRUE(a.fail_allocations_on(0).ok());
  a.fail_copies(CopyDirection::Both);
  a.clear_faults();
  void* p = must_allocate(a, 4);
  uint8_t host[4] = {1, 2, 3, 4};
  EXPECT_TRUE(a.copy_host_to_device(p, host, 4, 0).ok());
  EXPECT_TRUE(a.copy_device_to_host(host, p, 4, 0).ok());
  a.deallocate(p, 0);
}

TEST(TrackingDeviceAllocatorTest, FailCopiesFailsTheChosenDirections) {
  TrackingDeviceAllocator a;
  void* p = must_allocate(a, 8);
  uint8_t host[8] = {1, 2, 3, 4, 5, 6, 7, 8};

  a.fail_copies(CopyDirection::HostToDevice);
  Error h2d = a.copy_host_to_device(p, host, 8, 0);
  EXPECT_EQ(h2d.code(), ErrorCode::Internal);
  EXPECT_EQ(h2d.message(),
            "TrackingDeviceAllocator::copy_host_to_device: injected fault: copy "
            "of 8 B to cuda:0 fails (fail_copies)");
  EXPECT_EQ(peek_bytes(a, p, 8), std::vector<uint8_t>(8, 0xCD));
  EXPECT_TRUE(a.copy_device_to_host(host, p, 8, 0).ok());
  EXPECT_EQ(host[0], 0xCD);

  a.fail_copies(CopyDirection::DeviceToHost);
  host[0] = 1;
  EXPECT_TRUE(a.copy_host_to_device(p, host, 8, 0).ok());
  Error d2h = a.copy_device_to_host(host, p, 8, 0);
  EXPECT_EQ(d2h.code(), ErrorCode::Internal);
  EXPECT_EQ(d2h.message(),
            "TrackingDeviceAllocator::copy_device_to_host: injected fault: copy "
            "of 8 B from cuda:0 fails (fail_copies)");

  a.fail_copies(CopyDirection::Both);
  EXPECT_EQ(a.copy_host_to_device(p, host, 8, 0).code(), ErrorCode::Internal);
  EXPECT_EQ(a.copy_device_to_host(host, p, 8, 0).code(), ErrorCode::Internal);

  a.fail_copies(CopyDirection::None);
  EXPECT_TRUE(a.copy_host_to_device(p, host, 8, 0).ok());
  EXPECT_TRUE(a.copy_device_to_host(host, p, 8, 0).ok());

  // Only performed copies are counted; injected faults are not misuse.
  EXPECT_EQ(a.stats(0).host_to_device_copies, 2u);
  EXPECT_EQ(a.stats(0).device_to_host_copies, 2u);
  EXPECT_FALSE(a.has_misuse());
  a.deallocate(p, 0);
}

TEST(TrackingDeviceAllocatorTest, MisuseIsCheckedBeforeCopyFaults) {
  TrackingDeviceAllocator a;
  void* p = must_allocate(a, 8);
  a.fail_copies(CopyDirection::Both);
  uint8_t host[16] = {};
  EXPECT_EQ(a.copy_host_to_device(p, host, 16, 0).code(), ErrorCode::InvalidArgument);
  ASSERT_EQ(a.misuse().size(), 1u);
  EXPECT_EQ(a.misuse()[0].kind, MisuseKind::CopyOutOfBounds);
  a.deallocate(p, 0);
}

TEST(TrackingDeviceAllocatorTest, CapacityLimitsLiveBytesPerDevice) {
  TrackingDeviceAllocator a;
  ASSERT_TRUE(a.set_capacity(0, 1000).ok());
  void* big = must_allocate(a, 960, 0);
  Result<void*> over = a.allocate(64, 0);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.code(), ErrorCode::MemoryAllocationFailed);
  EXPECT_EQ(over.error().message(),
            "TrackingDeviceAllocator::allocate: out of memory on "
            "cuda:0: requested 64 bytes with 960 bytes live, capacity "
            "1000 bytes");
  void* exact = must_allocate(a, 40, 0);  // 1000 exactly
  Result<void*> one_more = a.allocate(1, 0);
  EXPECT_EQ(one_more.code(), ErrorCode::MemoryAllocationFailed);
  void* other_device = must_allocate(a, 4000, 1);  // cuda:1 is unlimited
  a.deallocate(big, 0);
  void* fits_again = must_allocate(a, 64, 0);
  Result<void*> too_big_alone = a.allocate(1001, 0);
  EXPECT_EQ(too_big_alone.code(), ErrorCode::MemoryAllocationFailed);

  std::vector<FailedAllocation> failed = a.failed_allocations();
  ASSERT_EQ(failed.size(), 3u);
  EXPECT_EQ(failed[0].seq, 2u);
  EXPECT_EQ(failed[2].reason,
            "TrackingDeviceAllocator::allocate: out of memory on cuda:0: "
            "requested 1001 bytes with 104 bytes live, capacity 1000 bytes");
  Error negative = a.set_capacity(-1, 10);
  EXPECT_EQ(negative.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(negative.message(),
            "TrackingDeviceAllocator::set_capacity: device cuda:-1 has a negative index");

  a.clear_capacities();
  void* unlimited = must_allocate(a, 5000, 0);
  for (auto [p, i] : {std::pair<void*, DeviceIndex>{exact, 0},
                      {other_device, 1},
                      {fits_again, 0},
                      {unlimited, 0}}) {
    a.deallocate(p, i);
  }
  EXPECT_FALSE(a.has_leaks());
}

TEST(TrackingDeviceAllocatorTest, RefusesAllocationsAboveTheLargestSimulatedSize) {
  TrackingDeviceAllocator a;
  EXPECT_EQ(a.max_allocation_bytes(), uint64_t{1} << 32);
  a.set_max_allocation_bytes(100);
  void* p = must_allocate(a, 100);
  Result<void*> r = a.allocate(101, 0);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.code(), ErrorCode::MemoryAllocationFailed);
  EXPECT_EQ(r.error().message(),
            "TrackingDeviceAllocator::allocate: 101 bytes on cuda:0 exceed "
            "the largest simulated allocation (100 bytes)");
  // Absurd sizes are refused even without a limit, and never reach the host allocator.
  a.set_max_allocation_bytes(UINT64_MAX);
  Result<void*> absurd = a.allocate(SIZE_MAX - 8, 0);
  ASSERT_FALSE(absurd.ok());
  EXPECT_EQ(absurd.code(), ErrorCode::MemoryAllocationFailed);
  EXPECT_EQ(absurd.error().message(), "TrackingDeviceAllocator::allocate: host memory for " +
                                          std::to_string(SIZE_MAX - 8) +
                                          " bytes on cuda:0 could not be allocated");
  a.deallocate(p, 0);
}

// --- devices ------------------------------------------------------------------------------------

TEST(TrackingDeviceAllocatorTest, EveryIndexExistsByDefaultAndNegativeNever) {
  TrackingDeviceAllocator a;
  void* p = must_allocate(a, 8, 127);
  EXPECT_TRUE(a.is_device_available(0));
  EXPECT_TRUE(a.is_device_available(127));
  EXPECT_FALSE(a.is_device_available(-1));
  Result<void*> negative = a.allocate(8, -1);
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(negative.error().message(),
            "TrackingDeviceAllocator::allocate: device cuda:-1 has a negative index");
  ASSERT_EQ(a.failed_allocations().size(), 1u);
  EXPECT_EQ(a.failed_allocations()[0].device.index, -1);
  EXPECT_EQ(a.stats(-1).failed_allocations, 0u);
  a.deallocate(p, 127);
}

TEST(TrackingDeviceAllocatorTest, RestrictedDevicesRejectOtherIndices) {
  TrackingDeviceAllocator a;
  ASSERT_TRUE(a.set_device_count(2).ok());
  EXPECT_TRUE(a.is_device_available(1));
  EXPECT_FALSE(a.is_device_available(2));
  Result<void*> r = a.allocate(8, 2);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(r.error().message(),
            "TrackingDeviceAllocator::allocate: device cuda:2 is not "
            "simulated (simulated: cuda:0, cuda:1)");
  void* p1 = must_allocate(a, 8, 1);

  ASSERT_TRUE(a.restrict_devices({5, 3}).ok());
  Result<void*> r1 = a.allocate(8, 1);
  EXPECT_EQ(r1.error().message(),
            "TrackingDeviceAllocator::allocate: device cuda:1 is not "
            "simulated (simulated: cuda:3, cuda:5)");
  void* p5 = must_allocate(a, 8, 5);

  Error bad = a.restrict_devices({1, -4});
  EXPECT_EQ(bad.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(bad.message(),
            "TrackingDeviceAllocator::restrict_devices: device cuda:-4 has a negative index");
  EXPECT_TRUE(a.is_device_available(5));  // unchanged
  EXPECT_FALSE(a.is_device_available(1));

  Error too_many = a.set_device_count(129);
  EXPECT_EQ(too_many.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(too_many.message(),
            "TrackingDeviceAllocator::set_device_count: 129 devices "
            "requested; the count must be from 0 to 128");
  EXPECT_EQ(a.set_device_count(-1).code(), ErrorCode::InvalidArgument);

  ASSERT_TRUE(a.set_device_count(0).ok());
  Result<void*> none = a.allocate(8, 0);
  EXPECT_EQ(none.error().message(),
            "TrackingDeviceAllocator::allocate: device cuda:0 is not "
            "simulated (simulated: none)");

  a.allow_all_devices();
  void* p9 = must_allocate(a, 8, 9);
  // Freeing and copying do not depend on the restriction: the blocks exist.
  ASSERT_TRUE(a.set_device_count(1).ok());
  a.deallocate(p1, 1);
  a.deallocate(p5, 5);
  a.deallocate(p9, 9);
  EXPECT_FALSE(a.has_misuse());
  EXPECT_EQ(a.failed_allocations().size(), 3u);
}

}  // namespace
}  // namespace devplan
