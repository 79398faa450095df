// TrackingDeviceAllocator: the fused path (FusedTrackingPath, on by default) and the layers one by
// one (set_fused_path(false)) leave the same ledger, reports, statistics and bytes for the same
// calls, misuse and failures included, and may alternate call by call.
#include <mocks/tracking_device_allocator.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include <mocks/ledger_text.h>
#include <runtime_ext/core/allocation_owner.h>

#include "tracking_test_helpers.h"

namespace devplan {
namespace {

using tracking_test::hex;
using tracking_test::must_allocate;
using tracking_test::peek_bytes;

// Everything a caller can read back, as text; pointers the reports print are replaced by names,
// since each allocator hands out addresses of its own.
struct Reports {
  std::string leaks;
  std::string misuse;
  std::vector<std::string> ledger;  // ledger_report_lines(): every call, failed ones included
  std::vector<std::string> stats;   // one line per device index used
  uint64_t calls = 0;
};

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

std::string stats_line(const TrackingDeviceAllocator& a, DeviceIndex index) {
  const DeviceAllocationStats s = a.stats(index);
  return "cuda:" + std::to_string(index) + " current " + std::to_string(s.current_bytes) + " B/" +
         std::to_string(s.current_allocations) + " peak " + std::to_string(s.peak_bytes) + " B/" +
         std::to_string(s.peak_allocations) + " total " + std::to_string(s.total_bytes) + " B/" +
         std::to_string(s.total_allocations) + " frees " + std::to_string(s.frees) + " failed " +
         std::to_string(s.failed_allocations) + " h2d " + std::to_string(s.host_to_device_copies) +
         "/" + std::to_string(s.host_to_device_bytes) + " d2h " +
         std::to_string(s.device_to_host_copies) + "/" + std::to_string(s.device_to_host_bytes);
}

Reports reports_of(const TrackingDeviceAllocator& a,
                   const std::vector<std::string>& pointer_texts) {
  Reports r;
  r.leaks = a.leak_report();
  r.misuse = a.misuse_report();
  for (size_t i = 0; i < pointer_texts.size(); ++i) {
    r.misuse = replace_all(r.misuse, pointer_texts[i], "<pointer " + std::to_string(i) + ">");
  }
  r.ledger = ledger_report_lines(a);
  for (DeviceIndex index : {0, 1}) r.stats.push_back(stats_line(a, index));
  r.calls = a.allocate_calls();
  return r;
}

void expect_same(const Reports& fused, const Reports& layered) {
  EXPECT_EQ(fused.leaks, layered.leaks);
  EXPECT_EQ(fused.misuse, layered.misuse);
  EXPECT_EQ(fused.ledger, layered.ledger);
  EXPECT_EQ(fused.stats, layered.stats);
  EXPECT_EQ(fused.calls, layered.calls);
}

// Good calls, failed calls (each layer's check), every kind of bad free, a bad copy and two leaks.
// `unknown` is an address no allocator hands out (the same in every run).
Reports run_mixed_calls(TrackingDeviceAllocator& a, void* unknown) {
  void* p1 = nullptr;
  {
    ScopedAllocationOwner owner("forward/buffer 1");
    p1 = must_allocate(a, 48, 0);  // #1
  }
  void* p2 = must_allocate(a, 32, 0, 256);  // #2
  void* p3 = must_allocate(a, 0, 1);        // #3
  EXPECT_FALSE(a.allocate(8, 0, 3).ok());   // #4: alignment (validation)
  EXPECT_FALSE(a.allocate(8, -1).ok());     // #5: negative index (validation)
  void* p4 = must_allocate(a, 100, 1);      // #6
  a.deallocate(p2, 0);
  a.deallocate(p2, 0);                              // double free
  a.deallocate(unknown, 0);                         // unknown pointer
  a.deallocate(static_cast<uint8_t*>(p1) + 16, 0);  // interior pointer
  a.deallocate(p4, 0);                              // wrong device: freed anyway
  EXPECT_TRUE(a.set_capacity(0, 100).ok());
  EXPECT_FALSE(a.allocate(60, 0).ok());  // #7: capacity (48 B live)
  a.clear_capacities();
  a.fail_allocation_at(8);
  EXPECT_FALSE(a.allocate(8, 0).ok());  // #8: injected
  a.clear_faults();
  void* p5 = must_allocate(a, 16, 0);  // #9
  const std::vector<uint8_t> bytes(32, 0x5A);
  EXPECT_TRUE(a.copy_host_to_device(p5, bytes.data(), 16, 0).ok());
  EXPECT_FALSE(a.copy_host_to_device(p5, bytes.data(), 32, 0).ok());  // past the end
  a.deallocate(p3, 1);
  EXPECT_TRUE(a.is_quarantined(p2));
  EXPECT_EQ(peek_bytes(a, p2, 32),
            std::vector<uint8_t>(32, TrackingDeviceAllocator::kFreedPattern));
  EXPECT_EQ(peek_bytes(a, p5, 16), std::vector<uint8_t>(16, 0x5A));
  return reports_of(a, {hex(static_cast<uint8_t*>(p1) + 16)});  // p1 and p5 leak
}

TEST(TrackingFusedPathTest, WritesTheReportsTheLayersWrite) {
  int unknown = 0;
  TrackingDeviceAllocator fused;
  TrackingDeviceAllocator layered;
  layered.set_fused_path(false);
  const Reports f = run_mixed_calls(fused, &unknown);
  const Reports l = run_mixed_calls(layered, &unknown);
  expect_same(f, l);

  EXPECT_EQ(f.leaks,
            "#1 cuda:0 48 B align 16 owner forward/buffer 1\n"
            "#9 cuda:0 16 B align 16 owner -\n");
  EXPECT_EQ(f.misuse,
            "double free of #2 cuda:0 32 B owner -\n"
            "free of unknown pointer " +
                hex(&unknown) +
                " on cuda:0\n"
                "free of interior pointer <pointer 0> (offset 16) of #1 cuda:0 48 B "
                "owner forward/buffer 1\n"
                "free on cuda:0 of #6 cuda:1 100 B owner -\n"
                "copy_host_to_device of 32 B at offset 0 past the end of #9 cuda:0 16 B "
                "owner -\n");
  const std::string refused = "  FAILED InvalidArgument: TrackingDeviceAllocator::allocate: ";
  const std::string failed = "  FAILED MemoryAllocationFailed: TrackingDeviceAllocator::allocate: ";
  EXPECT_EQ(
      f.ledger,
      (std::vector<std::string>{
          "#1 cuda:0 48 B align 16 owner forward/buffer 1  LIVE",
          "#2 cuda:0 32 B align 256 owner -  freed",
          "#3 cuda:1 0 B align 16 owner -  freed",
          "#4 cuda:0 8 B align 3 owner -" + refused +
              "alignment 3 for 8 bytes on cuda:0 is not a power of two",
          "#5 cuda:-1 8 B align 16 owner -" + refused + "device cuda:-1 has a negative index",
          "#6 cuda:1 100 B align 16 owner -  freed",
          "#7 cuda:0 60 B align 16 owner -" + failed +
              "out of memory on cuda:0: requested 60 bytes with 48 bytes live, capacity 100 "
              "bytes",
          "#8 cuda:0 8 B align 16 owner -" + failed +
              "injected fault: allocation #8 of 8 bytes on cuda:0 fails (fail_allocation_at 8)",
          "#9 cuda:0 16 B align 16 owner -  LIVE",
      }));
  EXPECT_EQ(f.stats[0], std::string("cuda:0 current 64 B/2 peak 80 B/2 total 96 B/3 frees 1 ") +
                            "failed 3 h2d 1/16 d2h 0/0");
  EXPECT_EQ(f.stats[1], std::string("cuda:1 current 0 B/0 peak 100 B/2 total 100 B/2 frees 2 ") +
                            "failed 0 h2d 0/0 d2h 0/0");
  EXPECT_EQ(f.calls, 9u);
}

// The paths share every piece of state, so a block allocated on one is freed on the other, and
// turning the fused path off and on between calls changes no report.
TEST(TrackingFusedPathTest, AlternatesWithTheLayersCallByCall) {
  int unknown = 0;
  auto run = [&](TrackingDeviceAllocator& a, bool alternate) {
    void* p = must_allocate(a, 40, 0);  // fused when alternating
    if (alternate) a.set_fused_path(false);
    void* q = must_allocate(a, 24, 0);  // the layers
    a.deallocate(p, 0);                 // the layers free a fused block
    if (alternate) a.set_fused_path(true);
    a.deallocate(q, 0);  // fused free of a layered block
    a.deallocate(p, 0);  // double free
    a.deallocate(&unknown, 1);
    EXPECT_TRUE(a.set_capacity(0, 64).ok());  // the layers take the next calls
    void* r = must_allocate(a, 64, 0);
    EXPECT_FALSE(a.allocate(1, 0).ok());
    a.clear_capacities();  // the fused path takes them again
    void* s = must_allocate(a, 8, 0);
    a.deallocate(r, 0);
    a.deallocate(r, 0);
    a.deallocate(s, 0);
    EXPECT_TRUE(a.is_quarantined(q));
    return reports_of(a, {});
  };
  TrackingDeviceAllocator alternating;
  TrackingDeviceAllocator layered;
  layered.set_fused_path(false);
  const Reports a = run(alternating, true);
  expect_same(a, run(layered, false));
  EXPECT_EQ(a.leaks, "");
  EXPECT_EQ(a.misuse,
            "double free of #1 cuda:0 40 B owner -\n"
            "free of unknown pointer " +
                hex(&unknown) +
                " on cuda:1\n"
                "double free of #3 cuda:0 64 B owner -\n");
  EXPECT_EQ(a.stats[0],
            "cuda:0 current 0 B/0 peak 72 B/2 total 136 B/4 frees 4 failed 1 h2d 0/0 d2h 0/0");
  EXPECT_EQ(a.calls, 5u);
}

// The quarantine, its limits, the patterns and the window of remembered releases behave alike.
TEST(TrackingFusedPathTest, KeepsTheQuarantineAsTheLayersDo) {
  auto run = [](TrackingDeviceAllocator& a) {
    a.set_quarantine_limits(1000, 2);
    std::vector<void*> blocks;
    for (size_t size : {100, 200, 300, 2000}) blocks.push_back(must_allocate(a, size, 0));
    for (void* block : blocks) a.deallocate(block, 0);
    std::vector<bool> quarantined;
    for (void* block : blocks) quarantined.push_back(a.is_quarantined(block));
    EXPECT_EQ(peek_bytes(a, blocks[2], 300),
              std::vector<uint8_t>(300, TrackingDeviceAllocator::kFreedPattern));
    a.deallocate(blocks[0], 0);  // released: still known as freed
    a.deallocate(blocks[3], 0);  // released at once (above the byte limit)
    EXPECT_FALSE(a.has_leaks());
    return std::make_pair(quarantined, a.misuse_report());
  };
  TrackingDeviceAllocator fused;
  TrackingDeviceAllocator layered;
  layered.set_fused_path(false);
  const auto f = run(fused);
  EXPECT_EQ(f, run(layered));
  EXPECT_EQ(f.first, (std::vector<bool>{false, true, true, false}));
  EXPECT_EQ(f.second,
            "double free of #1 cuda:0 100 B owner -\n"
            "double free of #4 cuda:0 2000 B (2.0 KiB) owner -\n");
}

// A shard alone numbers calls without a locked instruction; when a second device starts
// allocating while the first is busy, the numbers stay unique and dense.
TEST(TrackingFusedPathTest, SequenceNumbersStayUniqueWhenASecondDeviceJoins) {
  constexpr int kIterations = 20000;
  TrackingDeviceAllocator a;
  std::atomic<int> done_on_0{0};
  std::thread first([&] {
    for (int i = 0; i < kIterations; ++i) {
      a.deallocate(must_allocate(a, 8, 0), 0);
      done_on_0.store(i + 1, std::memory_order_relaxed);
    }
  });
  while (done_on_0.load(std::memory_order_relaxed) < kIterations / 4) std::this_thread::yield();
  std::thread second([&] {
    for (int i = 0; i < kIterations; ++i) a.deallocate(must_allocate(a, 8, 1), 1);
  });
  first.join();
  second.join();
  EXPECT_EQ(a.allocate_calls(), uint64_t{2} * kIterations);
  const std::vector<AllocationRecord> ledger = a.ledger();
  ASSERT_EQ(ledger.size(), size_t{2} * kIterations);
  for (size_t i = 0; i < ledger.size(); ++i) ASSERT_EQ(ledger[i].seq, i + 1);
  EXPECT_FALSE(a.has_misuse()) << a.misuse_report();
}

}  // namespace
}  // namespace devplan
