// TrackingDeviceAllocator: statistics, the leak and misuse reports, reset and destruction.
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

// --- statistics and reports ---------------------------------------------------------------------

TEST(TrackingDeviceAllocatorTest, KeepsPerDeviceStatisticsOverASequence) {
  TrackingDeviceAllocator a;
  a.fail_allocation_at(4);
  void* a1 = must_allocate(a, 100, 0);
  void* a2 = must_allocate(a, 50, 0);
  void* b1 = must_allocate(a, 7, 1);
  EXPECT_FALSE(a.allocate(1000, 0).ok());  // #4, injected
  a.deallocate(a1, 0);
  void* a3 = must_allocate(a, 30, 0);
  void* a4 = must_allocate(a, 200, 0);
  a.deallocate(a2, 0);
  a.deallocate(a2, 0);  // double free: not a second free

  DeviceAllocationStats s0 = a.stats(0);
  EXPECT_EQ(s0.current_bytes, 230u);
  EXPECT_EQ(s0.peak_bytes, 280u);  // 50 + 30 + 200 before a2 was freed
  EXPECT_EQ(s0.total_bytes, 380u);
  EXPECT_EQ(s0.current_allocations, 2u);
  EXPECT_EQ(s0.peak_allocations, 3u);
  EXPECT_EQ(s0.total_allocations, 4u);
  EXPECT_EQ(s0.frees, 2u);
  EXPECT_EQ(s0.failed_allocations, 1u);

  DeviceAllocationStats s1 = a.stats(1);
  EXPECT_EQ(s1.current_bytes, 7u);
  EXPECT_EQ(s1.peak_bytes, 7u);
  EXPECT_EQ(s1.total_bytes, 7u);
  EXPECT_EQ(s1.current_allocations, 1u);
  EXPECT_EQ(s1.peak_allocations, 1u);
  EXPECT_EQ(s1.total_allocations, 1u);
  EXPECT_EQ(s1.frees, 0u);
  EXPECT_EQ(s1.failed_allocations, 0u);

  DeviceAllocationStats s5 = a.stats(5);
  EXPECT_EQ(s5.total_allocations, 0u);
  EXPECT_EQ(s5.peak_bytes, 0u);

  a.deallocate(a3, 0);
  a.deallocate(a4, 0);
  a.deallocate(b1, 1);
  EXPECT_EQ(a.stats(0).current_bytes, 0u);
  EXPECT_EQ(a.stats(0).peak_bytes, 280u);
  EXPECT_EQ(a.stats(0).frees, 4u);
}

TEST(TrackingDeviceAllocatorTest, LeakAndMisuseReportsHaveExactLines) {
  TrackingDeviceAllocator a;
  EXPECT_EQ(a.leak_report(), "");
  EXPECT_EQ(a.misuse_report(), "");
  std::vector<void*> freed;
  for (int i = 0; i < 2; ++i) freed.push_back(must_allocate(a, 8));
  void* third = nullptr;
  {
    ScopedAllocationOwner owner("forward/buffer 1");
    third = must_allocate(a, 48);  // #3
  }
  for (int i = 0; i < 3; ++i) freed.push_back(must_allocate(a, 8));  // #4..#6
  void* seventh = nullptr;
  void* eighth = nullptr;
  {
    ScopedAllocationOwner owner("forward/buffer 1");
    seventh = must_allocate(a, 48);  // #7
  }
  eighth = must_allocate(a, 256, 2, 256);  // #8, no owner
  for (void* p : freed) a.deallocate(p, 0);
  a.deallocate(third, 0);
  a.deallocate(third, 0);

  EXPECT_EQ(a.leak_report_lines(),
            (std::vector<std::string>{"#7 cuda:0 48 B align 16 owner forward/buffer 1",
                                      "#8 cuda:2 256 B align 256 owner -"}));
  EXPECT_EQ(a.leak_report(),
            "#7 cuda:0 48 B align 16 owner forward/buffer 1\n"
            "#8 cuda:2 256 B align 256 owner -\n");
  EXPECT_EQ(a.misuse_report_lines(),
            (std::vector<std::string>{"double free of #3 cuda:0 48 B owner forward/buffer 1"}));
  EXPECT_EQ(a.misuse_report(), "double free of #3 cuda:0 48 B owner forward/buffer 1\n");

  std::vector<AllocationRecord> live = a.live_allocations();
  ASSERT_EQ(live.size(), 2u);
  EXPECT_EQ(live[0].seq, 7u);
  EXPECT_EQ(live[0].ptr, seventh);
  EXPECT_EQ(live[1].seq, 8u);
  EXPECT_EQ(live[1].ptr, eighth);

  std::vector<AllocationRecord> ledger = a.ledger();
  ASSERT_EQ(ledger.size(), 8u);
  for (size_t i = 0; i < ledger.size(); ++i) {
    EXPECT_EQ(ledger[i].seq, i + 1);
    EXPECT_EQ(ledger[i].live, i >= 6) << i;
  }
  a.deallocate(seventh, 0);
  a.deallocate(eighth, 2);
}

// --- reset and destruction ----------------------------------------------------------------------

TEST(TrackingDeviceAllocatorTest, ResetRefusesWhileAllocationsAreLive) {
  TrackingDeviceAllocator a;
  void* p1 = must_allocate(a, 8);
  void* p2 = must_allocate(a, 8);
  void* p3 = must_allocate(a, 8);
  a.deallocate(p2, 0);
  Error busy = a.reset();
  EXPECT_EQ(busy.code(), ErrorCode::InvalidState);
  EXPECT_EQ(busy.message(),
            "TrackingDeviceAllocator::reset: 2 allocations are still live (#1, #3)");
  EXPECT_EQ(a.ledger().size(), 3u);
  a.deallocate(p1, 0);
  Error one = a.reset();
  EXPECT_EQ(one.message(), "TrackingDeviceAllocator::reset: 1 allocation is still live (#3)");
  a.deallocate(p3, 0);
}

TEST(TrackingDeviceAllocatorTest, ResetForgetsStateButKeepsSettings) {
  TrackingDeviceAllocator a;
  ASSERT_TRUE(a.set_capacity(0, 100).ok());
  a.fail_allocation_at(2);
  void* p = must_allocate(a, 50);
  EXPECT_FALSE(a.allocate(10, 0).ok());
  a.deallocate(p, 0);
  a.deallocate(p, 0);
  EXPECT_TRUE(a.is_quarantined(p));
  ASSERT_TRUE(a.reset().ok());
  EXPECT_TRUE(a.ledger().empty());
  EXPECT_TRUE(a.misuse().empty());
  EXPECT_TRUE(a.failed_allocations().empty());
  EXPECT_EQ(a.allocate_calls(), 0u);
  EXPECT_EQ(a.stats(0).total_allocations, 0u);
  EXPECT_EQ(a.stats(0).peak_bytes, 0u);
  EXPECT_FALSE(a.is_quarantined(p));

  // Sequence numbers restart, and the fault and capacity settings still apply.
  void* q = must_allocate(a, 50);
  EXPECT_EQ(a.ledger()[0].seq, 1u);
  Result<void*> second = a.allocate(10, 0);
  EXPECT_EQ(second.error().message(),
            "TrackingDeviceAllocator::allocate: injected fault: "
            "allocation #2 of 10 bytes on cuda:0 fails "
            "(fail_allocation_at 2)");
  Result<void*> third = a.allocate(51, 0);
  EXPECT_EQ(third.error().message(),
            "TrackingDeviceAllocator::allocate: out of memory on "
            "cuda:0: requested 51 bytes with 50 bytes live, capacity "
            "100 bytes");
  // A stale free of a block from before reset is an unknown pointer now.
  a.deallocate(p, 0);
  ASSERT_EQ(a.misuse().size(), 1u);
  EXPECT_EQ(a.misuse()[0].kind, MisuseKind::UnknownPointer);
  a.deallocate(q, 0);
}

TEST(TrackingDeviceAllocatorTest, DestructorFreesLeakedAndQuarantinedBlocks) {
  // Run under LeakSanitizer (asan preset) this test fails if any block outlives the allocator.
  auto a = std::make_unique<TrackingDeviceAllocator>();
  void* leaked = must_allocate(*a, 1024);
  void* freed = must_allocate(*a, 2048);
  a->deallocate(freed, 0);
  EXPECT_TRUE(a->has_leaks());
  EXPECT_TRUE(a->is_quarantined(freed));
  EXPECT_NE(leaked, nullptr);
  a.reset();
}

}  // namespace
}  // namespace devplan
