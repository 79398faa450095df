// TrackingDeviceAllocator: the quarantine of freed blocks, peek, and the bounded window of
// released blocks.
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

// --- quarantine ---------------------------------------------------------------------------------

TEST(TrackingDeviceAllocatorTest, FreedBlocksArePoisonedAndKeptInQuarantine) {
  TrackingDeviceAllocator a;
  void* p = must_allocate(a, 64);
  std::vector<uint8_t> data(64, 0x42);
  ASSERT_TRUE(a.copy_host_to_device(p, data.data(), 64, 0).ok());
  a.deallocate(p, 0);
  EXPECT_TRUE(a.is_quarantined(p));
  EXPECT_EQ(peek_bytes(a, p, 64), std::vector<uint8_t>(64, 0xDD));

  // A stale read is refused and recorded, and the old data is gone anyway.
  std::vector<uint8_t> out(64, 0);
  Error stale = a.copy_device_to_host(out.data(), p, 64, 0);
  EXPECT_EQ(stale.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(out, std::vector<uint8_t>(64, 0));
  ASSERT_EQ(a.misuse().size(), 1u);
  EXPECT_EQ(a.misuse()[0].kind, MisuseKind::CopyFromFreedMemory);
  EXPECT_EQ(a.misuse()[0].allocation_seq, 1u);

  // While quarantined, the address is not handed out again.
  void* q = must_allocate(a, 64);
  EXPECT_NE(q, p);
  a.deallocate(q, 0);
}

#if defined(__SANITIZE_ADDRESS__)
#define DEVPLAN_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DEVPLAN_TEST_ASAN 1
#endif
#endif

TEST(TrackingDeviceAllocatorDeathTest, AsanReportsAHostReadOfAQuarantinedBlock) {
#if defined(DEVPLAN_TEST_ASAN)
  TrackingDeviceAllocator a;
  void* p = must_allocate(a, 64);
  a.deallocate(p, 0);
  ASSERT_TRUE(a.is_quarantined(p));
  // A simulated kernel dereferencing a stale device pointer.
  EXPECT_DEATH(
      {
        volatile uint8_t value = *(static_cast<volatile uint8_t*>(p) + 8);
        (void)value;
      },
      "use-after-poison");
#else
  GTEST_SKIP() << "needs an AddressSanitizer build (the asan preset)";
#endif
}

TEST(TrackingDeviceAllocatorTest, QuarantineIsBoundedByCountAndBytes) {
  TrackingDeviceAllocator a;
  a.set_quarantine_limits(1000, 2);
  void* p1 = must_allocate(a, 100);
  void* p2 = must_allocate(a, 100);
  void* p3 = must_allocate(a, 100);
  a.deallocate(p1, 0);
  a.deallocate(p2, 0);
  a.deallocate(p3, 0);
  EXPECT_FALSE(a.is_quarantined(p1));  // oldest, released
  EXPECT_TRUE(a.is_quarantined(p2));
  EXPECT_TRUE(a.is_quarantined(p3));
  uint8_t byte = 0;
  Error released = a.peek(p1, 1, &byte);
  EXPECT_EQ(released.code(), ErrorCode::NotFound);
  EXPECT_EQ(released.message(), "TrackingDeviceAllocator::peek: " + hex(p1) +
                                    " is not inside a live or quarantined block");
  // A released block is still known as freed: a stale copy into it is refused.
  EXPECT_EQ(a.copy_host_to_device(p1, &byte, 1, 0).code(), ErrorCode::InvalidArgument);
  ASSERT_EQ(a.misuse().size(), 1u);
  EXPECT_EQ(a.misuse()[0].kind, MisuseKind::CopyToFreedMemory);

  // By bytes: each 150-byte block pushes the oldest out; a block above the limit is never kept.
  a.set_quarantine_limits(250, 10);
  EXPECT_TRUE(a.is_quarantined(p2));  // 200 bytes fit
  EXPECT_TRUE(a.is_quarantined(p3));
  void* q1 = must_allocate(a, 150);
  void* q2 = must_allocate(a, 150);
  void* q3 = must_allocate(a, 251);
  a.deallocate(q1, 0);
  a.deallocate(q2, 0);
  a.deallocate(q3, 0);
  EXPECT_FALSE(a.is_quarantined(p2));
  EXPECT_FALSE(a.is_quarantined(p3));
  EXPECT_FALSE(a.is_quarantined(q1));
  EXPECT_TRUE(a.is_quarantined(q2));
  EXPECT_FALSE(a.is_quarantined(q3));

  a.set_quarantine_limits(0, 0);
  EXPECT_FALSE(a.is_quarantined(q2));
  EXPECT_EQ(a.misuse().size(), 1u);
}

TEST(TrackingDeviceAllocatorTest, PeekChecksItsRange) {
  TrackingDeviceAllocator a;
  void* p = must_allocate(a, 8);
  uint8_t out[16];
  Error past = a.peek(static_cast<uint8_t*>(p) + 4, 5, out);
  EXPECT_EQ(past.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(past.message(),
            "TrackingDeviceAllocator::peek: 5 B at offset 4 run past the end of #1 cuda:0 8 B "
            "owner -");
  Error null_out = a.peek(p, 1, nullptr);
  EXPECT_EQ(null_out.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(null_out.message(), "TrackingDeviceAllocator::peek: output is null (1 B)");
  EXPECT_TRUE(a.peek(p, 0, nullptr).ok());
  EXPECT_FALSE(a.has_misuse());
  a.deallocate(p, 0);
}

// Released blocks are remembered in a bounded window: a long-lived allocator's lookup maps do
// not grow with its history, and a double free inside the window is still a double free.
TEST(TrackingDeviceAllocatorWindowTest, ReleasedBlocksAreRememberedInABoundedWindow) {
  TrackingDeviceAllocator a;
  a.set_quarantine_limits(0, 0);  // every free releases at once
  void* first = *a.allocate(16, 0);
  a.deallocate(first, 0);
  void* recent = nullptr;
  for (size_t i = 0; i < TrackingDeviceAllocator::kRememberedReleases + 8; ++i) {
    recent = *a.allocate(16, 0);
    a.deallocate(recent, 0);
  }
  a.deallocate(recent, 0);  // inside the window: a double free
  ASSERT_EQ(a.misuse().size(), 1u);
  EXPECT_EQ(a.misuse()[0].kind, MisuseKind::DoubleFree);
  EXPECT_FALSE(a.has_leaks());
}

TEST(TrackingDeviceAllocatorWindowTest, TheOldestReleaseFallsOutOfTheWindowTheNextStaysKnown) {
  ASSERT_EQ(TrackingDeviceAllocator::kRememberedReleases, 4096u);
  TrackingDeviceAllocator a;
  a.set_quarantine_limits(0, 0);  // every free releases at once
  // All blocks stay allocated until freed, so no address is handed out twice.
  std::vector<void*> blocks;
  for (size_t i = 0; i < TrackingDeviceAllocator::kRememberedReleases + 2; ++i) {
    blocks.push_back(must_allocate(a, 16));
  }
  // kRememberedReleases + 1 releases: the first one falls out of the window.
  for (size_t i = 0; i <= TrackingDeviceAllocator::kRememberedReleases; ++i) {
    a.deallocate(blocks[i], 0);
  }
  ASSERT_FALSE(a.has_misuse()) << a.misuse_report();
  a.deallocate(blocks[0], 0);
  a.deallocate(blocks[1], 0);
  std::vector<MisuseRecord> misuse = a.misuse();
  ASSERT_EQ(misuse.size(), 2u);
  EXPECT_EQ(misuse[0].kind, MisuseKind::UnknownPointer);
  EXPECT_EQ(misuse[0].message, "free of unknown pointer " + hex(blocks[0]) + " on cuda:0");
  EXPECT_EQ(misuse[1].kind, MisuseKind::DoubleFree);
  EXPECT_EQ(misuse[1].allocation_seq, 2u);
  EXPECT_EQ(misuse[1].message, "double free of #2 cuda:0 16 B owner -");
  a.deallocate(blocks.back(), 0);
  EXPECT_FALSE(a.has_leaks());
}

TEST(TrackingDeviceAllocatorQuarantineTest, BlockOfExactlyTheByteLimitIsKeptOneByteMoreIsNot) {
  TrackingDeviceAllocator a;
  a.set_quarantine_limits(250, 10);
  void* fits = must_allocate(a, 250);
  void* too_big = must_allocate(a, 251);
  a.deallocate(fits, 0);
  a.deallocate(too_big, 0);
  EXPECT_TRUE(a.is_quarantined(fits));
  EXPECT_FALSE(a.is_quarantined(too_big));
  // Released at once, it is still remembered as freed.
  a.deallocate(too_big, 0);
  ASSERT_EQ(a.misuse().size(), 1u);
  EXPECT_EQ(a.misuse()[0].message, "double free of #2 cuda:0 251 B owner -");
}

TEST(TrackingDeviceAllocatorQuarantineTest, ZeroBlockLimitKeepsNothingWhateverTheBytes) {
  TrackingDeviceAllocator a;
  a.set_quarantine_limits(1000, 0);
  void* p = must_allocate(a, 16);
  a.deallocate(p, 0);
  EXPECT_FALSE(a.is_quarantined(p));
  a.deallocate(p, 0);
  std::vector<MisuseRecord> misuse = a.misuse();
  ASSERT_EQ(misuse.size(), 1u);
  EXPECT_EQ(misuse[0].kind, MisuseKind::DoubleFree);
  EXPECT_EQ(misuse[0].message, "double free of #1 cuda:0 16 B owner -");
}

TEST(TrackingDeviceAllocatorQuarantineTest, DefaultBlockLimitKeepsThe1024MostRecent) {
  ASSERT_EQ(TrackingDeviceAllocator::kDefaultQuarantineBlocks, 1024u);
  TrackingDeviceAllocator a;
  a.set_fill_patterns(false);
  std::vector<void*> blocks;
  for (size_t i = 0; i < TrackingDeviceAllocator::kDefaultQuarantineBlocks + 1; ++i) {
    blocks.push_back(must_allocate(a, 1));
  }
  for (void* b : blocks) a.deallocate(b, 0);
  EXPECT_FALSE(a.is_quarantined(blocks[0]));
  EXPECT_TRUE(a.is_quarantined(blocks[1]));
  EXPECT_TRUE(a.is_quarantined(blocks.back()));
  EXPECT_FALSE(a.has_misuse());
}

TEST(TrackingDeviceAllocatorQuarantineTest, DefaultByteLimitKeepsA64MiBBlockNotOneByteMore) {
  ASSERT_EQ(TrackingDeviceAllocator::kDefaultQuarantineBytes, size_t{67108864});
  TrackingDeviceAllocator a;
  a.set_fill_patterns(false);
  void* at_limit = must_allocate(a, 67108864);
  a.deallocate(at_limit, 0);
  EXPECT_TRUE(a.is_quarantined(at_limit));
  void* over_limit = must_allocate(a, 67108865);
  a.deallocate(over_limit, 0);
  EXPECT_FALSE(a.is_quarantined(over_limit));
  EXPECT_TRUE(a.is_quarantined(at_limit));
  EXPECT_FALSE(a.has_misuse());
}

}  // namespace
}  // namespace devplan
