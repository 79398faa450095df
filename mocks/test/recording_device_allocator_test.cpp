#include <mocks/recording_device_allocator.h>

#include <gtest/gtest.h>

#include <runtime_ext/core/allocation_owner.h>

namespace devplan {
namespace {

TEST(RecordingDeviceAllocatorTest, RecordsEventsInOrderWithOwners) {
  TrackingDeviceAllocator tracking;
  RecordingDeviceAllocator recording(&tracking);
  tracking.fail_allocation_at(2);
  void* a = nullptr;
  {
    ScopedAllocationOwner owner("m/buffer 0");
    a = *recording.allocate(48, 1, 16);
  }
  EXPECT_FALSE(recording.allocate(16, 0, 16).ok());
  void* c = *recording.allocate(32, 0, 64);
  recording.deallocate(a, 1);
  recording.deallocate(c, 3);  // the wrong index: attributed to the allocation's device
  std::vector<AllocationEvent> events = recording.events();
  ASSERT_EQ(events.size(), 5u);
  EXPECT_EQ(events[0].kind, AllocationEvent::Kind::Allocate);
  EXPECT_EQ(events[0].owner, "m/buffer 0");
  EXPECT_EQ(events[0].device, Device::cuda(1));
  EXPECT_EQ(events[1].kind, AllocationEvent::Kind::FailedAllocate);
  EXPECT_EQ(events[2].alignment, 64u);
  EXPECT_EQ(events[3].kind, AllocationEvent::Kind::Free);
  EXPECT_EQ(events[3].size, 48u);
  EXPECT_EQ(events[4].device, Device::cuda(0));
  EXPECT_EQ(events[4].size, 32u);
  EXPECT_EQ(tracking.misuse().size(), 1u);  // the tracking allocator saw the wrong-index free
}

TEST(RecordingDeviceAllocatorTest, LedgerFromEventsMatchesTheTrackingLedger) {
  TrackingDeviceAllocator tracking;
  RecordingDeviceAllocator recording(&tracking);
  tracking.fail_allocation_at(2);
  void* a = *recording.allocate(48, 0, 16);
  (void)recording.allocate(16, 0, 16);
  void* c = *recording.allocate(8, 2, 16);
  recording.deallocate(a, 0);
  recording.deallocate(a, 0);  // double free: an unknown pointer to the event ledger
  std::vector<AllocationEvent> unknown;
  std::vector<AllocationRecord> ledger = ledger_from_events(recording.events(), &unknown);
  ASSERT_EQ(ledger.size(), 2u);
  EXPECT_EQ(ledger[0].seq, 1u);
  EXPECT_FALSE(ledger[0].live);
  EXPECT_EQ(ledger[1].seq, 3u);
  EXPECT_EQ(ledger[1].device, Device::cuda(2));
  EXPECT_TRUE(ledger[1].live);
  EXPECT_EQ(format_allocation(ledger[1]), format_allocation(tracking.ledger()[1]));
  ASSERT_EQ(unknown.size(), 1u);
  EXPECT_EQ(unknown[0].ptr, a);
  recording.deallocate(c, 2);
}

}  // namespace
}  // namespace devplan
