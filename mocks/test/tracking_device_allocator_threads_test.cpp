// TrackingDeviceAllocator under concurrent use: many threads allocating, copying and freeing
// with their own owners must leave a consistent ledger.
#include <mocks/tracking_device_allocator.h>

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <runtime_ext/core/allocation_owner.h>

namespace devplan {
namespace {

TEST(TrackingDeviceAllocatorThreadsTest, ManyThreadsLeaveAConsistentLedger) {
  constexpr int kThreads = 4;
  constexpr int kIterations = 5000;
  TrackingDeviceAllocator a;
  std::atomic<int> errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&a, &errors, t] {
      ScopedAllocationOwner owner("thread " + std::to_string(t));
      const DeviceIndex index = static_cast<DeviceIndex>(t % 2);
      for (int i = 0; i < kIterations; ++i) {
        const size_t size = 1 + static_cast<size_t>((i * 37 + t) % 256);
        Result<void*> p = a.allocate(size, index, size_t{1} << (i % 8));
        if (!p.ok()) {
          ++errors;
          continue;
        }
        const uint8_t value = static_cast<uint8_t>(i);
        std::vector<uint8_t> in(size, value);
        std::vector<uint8_t> out(size, 0);
        if (!a.copy_host_to_device(*p, in.data(), size, index).ok()) ++errors;
        if (!a.copy_device_to_host(out.data(), *p, size, index).ok()) ++errors;
        if (out != in) ++errors;
        a.deallocate(*p, index);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();

  EXPECT_EQ(errors.load(), 0);
  EXPECT_FALSE(a.has_misuse()) << a.misuse_report();
  EXPECT_FALSE(a.has_leaks()) << a.leak_report();
  EXPECT_TRUE(a.failed_allocations().empty());
  EXPECT_EQ(a.allocate_calls(), uint64_t{kThreads} * kIterations);

  std::vector<AllocationRecord> ledger = a.ledger();
  ASSERT_EQ(ledger.size(), size_t{kThreads} * kIterations);
  std::map<std::string, int> per_owner;
  for (size_t i = 0; i < ledger.size(); ++i) {
    EXPECT_EQ(ledger[i].seq, i + 1);
    EXPECT_FALSE(ledger[i].live);
    ++per_owner[ledger[i].owner];
  }
  ASSERT_EQ(per_owner.size(), size_t{kThreads});
  for (int t = 0; t < kThreads; ++t)
    EXPECT_EQ(per_owner["thread " + std::to_string(t)], kIterations);

  for (DeviceIndex index : {0, 1}) {
    DeviceAllocationStats s = a.stats(index);
    EXPECT_EQ(s.total_allocations, uint64_t{2} * kIterations);
    EXPECT_EQ(s.frees, uint64_t{2} * kIterations);
    EXPECT_EQ(s.current_allocations, 0u);
    EXPECT_EQ(s.current_bytes, 0u);
    EXPECT_GE(s.peak_allocations, 1u);
    EXPECT_LE(s.peak_allocations, 2u);  // two threads per device, one block each at a time
    EXPECT_EQ(s.host_to_device_copies, uint64_t{2} * kIterations);
    EXPECT_EQ(s.device_to_host_copies, uint64_t{2} * kIterations);
    EXPECT_EQ(s.host_to_device_bytes, s.total_bytes);
  }
}

TEST(TrackingDeviceAllocatorThreadsTest, ConcurrentMisuseIsRecordedOncePerCall) {
  constexpr int kThreads = 4;
  constexpr int kIterations = 500;
  TrackingDeviceAllocator a;
  // Keep every freed block in quarantine: were an address handed out again between a
  // thread's two frees, its second free would free another thread's live block instead.
  a.set_quarantine_limits(size_t{1} << 30, size_t{kThreads} * kIterations);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&a] {
      for (int i = 0; i < kIterations; ++i) {
        Result<void*> p = a.allocate(32, 0);
        if (!p.ok()) continue;
        a.deallocate(*p, 0);
        a.deallocate(*p, 0);  // double free while other threads allocate
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  std::vector<MisuseRecord> misuse = a.misuse();
  ASSERT_EQ(misuse.size(), size_t{kThreads} * kIterations);
  std::set<uint64_t> seqs;
  for (const MisuseRecord& m : misuse) {
    EXPECT_EQ(m.kind, MisuseKind::DoubleFree);
    seqs.insert(m.allocation_seq);
  }
  EXPECT_EQ(seqs.size(), size_t{kThreads} * kIterations);  // each allocation exactly once
  EXPECT_EQ(a.stats(0).frees, uint64_t{kThreads} * kIterations);
  EXPECT_FALSE(a.has_leaks());
}

}  // namespace
}  // namespace devplan
