#include <mocks/recording_device_allocator.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <string>
#include <thread>
#include <vector>

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
  // The leaks of a ledger are its live records: here the one on cuda:2.
  const std::vector<AllocationRecord> live = live_records(ledger);
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(live[0].seq, 3u);
  EXPECT_EQ(format_allocation(live[0]), format_allocation(tracking.live_allocations()[0]));
  recording.deallocate(c, 2);
  EXPECT_TRUE(live_records(ledger_from_events(recording.events())).empty());
}

// A thread-safe upstream that does almost nothing (malloc and free), so that the threads spend
// their time in the recorder's own bookkeeping and meet there.
class MallocDeviceAllocator : public DeviceAllocator {
 public:
  Result<void*> allocate(size_t nbytes, DeviceIndex, size_t) override {
    return std::malloc(nbytes);
  }
  void deallocate(void* ptr, DeviceIndex) override { std::free(ptr); }
  Error copy_host_to_device(void*, const void*, size_t, DeviceIndex) override {
    return Error::success();
  }
  Error copy_device_to_host(void*, const void*, size_t, DeviceIndex) override {
    return Error::success();
  }
  DeviceType device_type() const override { return DeviceType::CUDA; }
};

// Threads allocating and freeing at once: every event is recorded whole, and every free finds
// the size and device of its allocation. An address freed by one thread and handed to another
// at once must be recorded in that order (a free records under the lock it frees under).
TEST(RecordingDeviceAllocatorTest, ManyThreadsRecordEveryEventWhole) {
  constexpr int kThreads = 8;
  constexpr int kIterations = 20000;
  MallocDeviceAllocator upstream;
  RecordingDeviceAllocator recording(&upstream);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&recording, t] {
      const DeviceIndex index = static_cast<DeviceIndex>(t % 4 + 1);
      for (int i = 0; i < kIterations; ++i) {
        const size_t size = 16 + static_cast<size_t>((i + t) % 7) * 16;
        Result<void*> p = recording.allocate(size, index, kDefaultAlignment);
        if (p.ok()) recording.deallocate(*p, index);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  const std::vector<AllocationEvent> events = recording.events();
  ASSERT_EQ(events.size(), size_t{2} * kThreads * kIterations);
  std::map<std::string, size_t> frees_by_device;
  for (const AllocationEvent& e : events) {
    ASSERT_NE(e.kind, AllocationEvent::Kind::FailedAllocate);
    if (e.kind != AllocationEvent::Kind::Free) continue;
    ASSERT_GE(e.size, 16u) << "a free that lost its allocation's size";
    ++frees_by_device[e.device.to_string()];
  }
  const size_t per_device = size_t{2} * kIterations;
  EXPECT_EQ(frees_by_device, (std::map<std::string, size_t>{{"cuda:1", per_device},
                                                            {"cuda:2", per_device},
                                                            {"cuda:3", per_device},
                                                            {"cuda:4", per_device}}));
  std::vector<AllocationEvent> unknown;
  for (const AllocationRecord& r : ledger_from_events(events, &unknown)) EXPECT_FALSE(r.live);
  EXPECT_TRUE(unknown.empty());
}

}  // namespace
}  // namespace devplan
