// TrackingDeviceAllocator: allocation, alignment, zero sizes, copies and the ledger.
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

// --- allocation and the ledger ------------------------------------------------------------------

TEST(TrackingDeviceAllocatorTest, ServesCudaByDefaultAndTheGivenTypeOtherwise) {
  TrackingDeviceAllocator cuda;
  TrackingDeviceAllocator cpu(DeviceType::CPU);
  EXPECT_EQ(cuda.device_type(), DeviceType::CUDA);
  EXPECT_EQ(cpu.device_type(), DeviceType::CPU);
  void* p = must_allocate(cpu, 8);
  ASSERT_EQ(cpu.ledger().size(), 1u);
  EXPECT_EQ(cpu.ledger()[0].device, Device::cpu());
  EXPECT_EQ(format_allocation(cpu.ledger()[0]), "#1 cpu:0 8 B align 16 owner -");
  cpu.deallocate(p, 0);
}

TEST(TrackingDeviceAllocatorTest, RecordsEveryFieldOfAnAllocation) {
  TrackingDeviceAllocator a;
  void* p = nullptr;
  {
    ScopedAllocationOwner owner("forward/buffer 1");
    p = must_allocate(a, 48, 3, 64);
  }
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(is_aligned(p, 64));
  std::vector<AllocationRecord> ledger = a.ledger();
  ASSERT_EQ(ledger.size(), 1u);
  EXPECT_EQ(ledger[0].seq, 1u);
  EXPECT_EQ(ledger[0].device, Device::cuda(3));
  EXPECT_EQ(ledger[0].size, 48u);
  EXPECT_EQ(ledger[0].alignment, 64u);
  EXPECT_EQ(ledger[0].owner, "forward/buffer 1");
  EXPECT_EQ(ledger[0].ptr, p);
  EXPECT_TRUE(ledger[0].live);
  EXPECT_EQ(a.allocate_calls(), 1u);
  EXPECT_EQ(a.live_count(), 1u);
  EXPECT_TRUE(a.has_leaks());
  EXPECT_FALSE(a.has_misuse());

  a.deallocate(p, 3);
  ledger = a.ledger();
  ASSERT_EQ(ledger.size(), 1u);
  EXPECT_FALSE(ledger[0].live);
  EXPECT_EQ(a.live_count(), 0u);
  EXPECT_FALSE(a.has_leaks());
  EXPECT_FALSE(a.has_misuse());
}

TEST(TrackingDeviceAllocatorTest, NewBlocksHoldTheFreshPattern) {
  TrackingDeviceAllocator a;
  void* p = must_allocate(a, 24);
  EXPECT_EQ(peek_bytes(a, p, 24), std::vector<uint8_t>(24, 0xCD));
  a.deallocate(p, 0);
}

TEST(TrackingDeviceAllocatorTest, WithoutFillPatternsBlocksAreNotFilled) {
  TrackingDeviceAllocator a;
  a.set_fill_patterns(false);
  void* p = must_allocate(a, 24);
  std::memset(p, 0x11, 24);
  a.deallocate(p, 0);
  // Still quarantined (a double free stays a double free), but not overwritten.
  EXPECT_TRUE(a.is_quarantined(p));
  EXPECT_EQ(peek_bytes(a, p, 24), std::vector<uint8_t>(24, 0x11));
  a.set_fill_patterns(true);
  void* q = must_allocate(a, 24);
  EXPECT_EQ(peek_bytes(a, q, 24), std::vector<uint8_t>(24, 0xCD));
  a.deallocate(q, 0);
}

TEST(TrackingDeviceAllocatorTest, LedgerFromStartsAtTheGivenRecord) {
  TrackingDeviceAllocator a;
  void* p = must_allocate(a, 8);
  void* q = must_allocate(a, 16);
  void* r = must_allocate(a, 32);
  EXPECT_EQ(a.ledger_size(), 3u);
  const std::vector<AllocationRecord> tail = a.ledger_from(1);
  ASSERT_EQ(tail.size(), 2u);
  EXPECT_EQ(tail[0].seq, 2u);
  EXPECT_EQ(tail[0].size, 16u);
  EXPECT_EQ(tail[1].seq, 3u);
  EXPECT_TRUE(a.ledger_from(3).empty());
  EXPECT_TRUE(a.ledger_from(7).empty());
  for (void* x : {p, q, r}) a.deallocate(x, 0);
}

TEST(TrackingDeviceAllocatorTest, HonoursEveryPowerOfTwoAlignmentUpTo4096) {
  TrackingDeviceAllocator a;
  std::vector<void*> blocks;
  for (size_t alignment = 1; alignment <= 4096; alignment *= 2) {
    for (size_t size : {size_t{1}, size_t{3}, size_t{100}, size_t{5000}}) {
      void* p = must_allocate(a, size, 0, alignment);
      ASSERT_NE(p, nullptr);
      EXPECT_TRUE(is_aligned(p, alignment)) << "alignment " << alignment << " size " << size;
      blocks.push_back(p);
    }
  }
  std::vector<AllocationRecord> ledger = a.ledger();
  ASSERT_EQ(ledger.size(), 13u * 4u);
  EXPECT_EQ(ledger[0].alignment, 1u);
  EXPECT_EQ(ledger[51].alignment, 4096u);
  for (void* p : blocks) a.deallocate(p, 0);
  EXPECT_FALSE(a.has_leaks());
  EXPECT_FALSE(a.has_misuse());
  EXPECT_TRUE(a.failed_allocations().empty());
}

TEST(TrackingDeviceAllocatorTest, RejectsZeroAndNonPowerOfTwoAlignment) {
  TrackingDeviceAllocator a;
  for (size_t alignment :
       {size_t{0}, size_t{3}, size_t{6}, size_t{12}, size_t{48}, size_t{4097}, size_t{65535}}) {
    Result<void*> r = a.allocate(48, 0, alignment);
    ASSERT_FALSE(r.ok()) << alignment;
    EXPECT_EQ(r.code(), ErrorCode::InvalidArgument);
    EXPECT_EQ(r.error().message(), "TrackingDeviceAllocator::allocate: alignment " +
                                       std::to_string(alignment) +
                                       " for 48 bytes on cuda:0 is not a power of two");
  }
  Result<void*> huge = a.allocate(48, 0, size_t{1} << 25);
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(huge.error().message(),
            "TrackingDeviceAllocator::allocate: alignment 33554432 for 48 bytes on cuda:0 "
            "exceeds the simulated maximum 16777216");
  EXPECT_TRUE(a.ledger().empty());
  std::vector<FailedAllocation> failed = a.failed_allocations();
  ASSERT_EQ(failed.size(), 8u);
  EXPECT_EQ(failed[1].seq, 2u);
  EXPECT_EQ(failed[1].alignment, 3u);
  EXPECT_EQ(failed[1].code, ErrorCode::InvalidArgument);
  EXPECT_EQ(failed[1].reason,
            "TrackingDeviceAllocator::allocate: alignment 3 for 48 bytes on cuda:0 is not a "
            "power of two");
  EXPECT_EQ(a.stats(0).failed_allocations, 8u);
  EXPECT_EQ(a.stats(0).total_allocations, 0u);
}

TEST(TrackingDeviceAllocatorTest, ZeroByteAllocationsAreUniqueRecordedAndFreeable) {
  TrackingDeviceAllocator a;
  void* p = must_allocate(a, 0);
  void* q = must_allocate(a, 0);
  ASSERT_NE(p, nullptr);
  ASSERT_NE(q, nullptr);
  EXPECT_NE(p, q);
  EXPECT_EQ(a.leak_report(),
            "#1 cuda:0 0 B align 16 owner -\n"
            "#2 cuda:0 0 B align 16 owner -\n");
  EXPECT_EQ(a.stats(0).current_allocations, 2u);
  EXPECT_EQ(a.stats(0).current_bytes, 0u);

  // A zero-byte copy is a no-op; a one-byte copy into a zero-byte block is out of bounds.
  uint8_t byte = 7;
  EXPECT_TRUE(a.copy_host_to_device(p, &byte, 0, 0).ok());
  Error err = a.copy_host_to_device(p, &byte, 1, 0);
  EXPECT_EQ(err.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(a.misuse_report(),
            "copy_host_to_device of 1 B at offset 0 past the end of "
            "#1 cuda:0 0 B owner -\n");

  a.deallocate(p, 0);
  a.deallocate(q, 0);
  EXPECT_FALSE(a.has_leaks());
  EXPECT_EQ(a.stats(0).frees, 2u);
  EXPECT_EQ(a.misuse().size(), 1u);
}

TEST(TrackingDeviceAllocatorTest, ZeroByteCopiesSucceedWithoutAnyCheck) {
  TrackingDeviceAllocator a;
  EXPECT_TRUE(a.copy_host_to_device(nullptr, nullptr, 0, 0).ok());
  EXPECT_TRUE(a.copy_device_to_host(nullptr, nullptr, 0, 5).ok());
  EXPECT_FALSE(a.has_misuse());
  EXPECT_EQ(a.stats(0).host_to_device_copies, 0u);
}

TEST(TrackingDeviceAllocatorTest, CopiesRoundTripAndCount) {
  TrackingDeviceAllocator a;
  void* p = must_allocate(a, 16, 2);
  const uint8_t in[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  ASSERT_TRUE(a.copy_host_to_device(static_cast<uint8_t*>(p) + 8, in, 8, 2).ok());
  uint8_t out[16] = {};
  ASSERT_TRUE(a.copy_device_to_host(out, p, 16, 2).ok());
  const uint8_t expected[16] = {0xCD, 0xCD, 0xCD, 0xCD, 0xCD, 0xCD, 0xCD, 0xCD,
                                1,    2,    3,    4,    5,    6,    7,    8};
  EXPECT_EQ(std::memcmp(out, expected, 16), 0);
  DeviceAllocationStats s = a.stats(2);
  EXPECT_EQ(s.host_to_device_copies, 1u);
  EXPECT_EQ(s.host_to_device_bytes, 8u);
  EXPECT_EQ(s.device_to_host_copies, 1u);
  EXPECT_EQ(s.device_to_host_bytes, 16u);
  a.deallocate(p, 2);
  EXPECT_FALSE(a.has_misuse());
}

TEST(TrackingDeviceAllocatorTest, CopyPastTheEndAtANonzeroOffsetIsMisuse) {
  TrackingDeviceAllocator a;
  void* p = must_allocate(a, 16, 2);
  uint8_t* middle = static_cast<uint8_t*>(p) + 8;
  const uint8_t in9[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  Error over = a.copy_host_to_device(middle, in9, 9, 2);
  EXPECT_EQ(over.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(over.message(),
            "TrackingDeviceAllocator::copy_host_to_device: copy_host_to_device of 9 B at offset "
            "8 past the end of #1 cuda:2 16 B owner -");
  EXPECT_EQ(peek_bytes(a, p, 16), std::vector<uint8_t>(16, 0xCD));
  ASSERT_TRUE(a.copy_host_to_device(middle, in9, 8, 2).ok());
  EXPECT_EQ(a.stats(2).host_to_device_copies, 1u);
  EXPECT_EQ(a.stats(2).host_to_device_bytes, 8u);
  std::vector<MisuseRecord> misuse = a.misuse();
  ASSERT_EQ(misuse.size(), 1u);
  EXPECT_EQ(misuse[0].kind, MisuseKind::CopyOutOfBounds);
  EXPECT_EQ(misuse[0].device, Device::cuda(2));
  a.deallocate(p, 2);
}

TEST(TrackingDeviceAllocatorTest, FreeOfTheLastInteriorByteAndOfTheByteAfterTheBlock) {
  TrackingDeviceAllocator a;
  void* p = must_allocate(a, 48);
  uint8_t* last = static_cast<uint8_t*>(p) + 47;
  uint8_t* after = static_cast<uint8_t*>(p) + 48;
  a.deallocate(last, 0);
  a.deallocate(after, 0);
  std::vector<MisuseRecord> misuse = a.misuse();
  ASSERT_EQ(misuse.size(), 2u);
  EXPECT_EQ(misuse[0].kind, MisuseKind::UnknownPointer);
  EXPECT_EQ(misuse[0].allocation_seq, 1u);
  EXPECT_EQ(misuse[0].message,
            "free of interior pointer " + hex(last) + " (offset 47) of #1 cuda:0 48 B owner -");
  EXPECT_EQ(misuse[1].kind, MisuseKind::UnknownPointer);
  EXPECT_EQ(misuse[1].allocation_seq, 0u);
  EXPECT_EQ(misuse[1].message, "free of unknown pointer " + hex(after) + " on cuda:0");
  EXPECT_EQ(a.live_count(), 1u);

  uint8_t host[1] = {5};
  Error copy = a.copy_host_to_device(after, host, 1, 0);
  EXPECT_EQ(copy.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(copy.message(),
            "TrackingDeviceAllocator::copy_host_to_device: copy_host_to_device of 1 B to unknown "
            "pointer " +
                hex(after) + " on cuda:0");
  EXPECT_TRUE(a.copy_host_to_device(last, host, 1, 0).ok());
  a.deallocate(p, 0);
  EXPECT_EQ(a.misuse().size(), 3u);
}

TEST(TrackingDeviceAllocatorTest, NullHostPointersAreInvalidArgumentsNotMisuse) {
  TrackingDeviceAllocator a;
  void* p = must_allocate(a, 16);
  Error h2d = a.copy_host_to_device(p, nullptr, 4, 0);
  EXPECT_EQ(h2d.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(h2d.message(),
            "TrackingDeviceAllocator::copy_host_to_device: host source is null (4 B to cuda:0)");
  Error d2h = a.copy_device_to_host(nullptr, p, 4, 0);
  EXPECT_EQ(d2h.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(d2h.message(),
            "TrackingDeviceAllocator::copy_device_to_host: host destination is "
            "null (4 B from cuda:0)");
  EXPECT_FALSE(a.has_misuse());
  a.deallocate(p, 0);
}

TEST(TrackingDeviceAllocatorTest, WorksThroughTheRegistryAndDeviceMemoryBuffer) {
  TrackingDeviceAllocator a;
  DeviceAllocatorRegistry registry;
  ASSERT_TRUE(registry.register_allocator(&a).ok());
  {
    ScopedAllocationOwner owner("forward/buffer 1");
    Result<DeviceMemoryBuffer> buffer =
        DeviceMemoryBuffer::create(48, DeviceType::CUDA, 1, kDefaultAlignment, registry);
    ASSERT_TRUE(buffer.ok()) << buffer.error();
    EXPECT_EQ(a.leak_report(), "#1 cuda:1 48 B align 16 owner forward/buffer 1\n");
  }
  EXPECT_FALSE(a.has_leaks());
  EXPECT_FALSE(a.has_misuse());
  EXPECT_EQ(a.stats(1).frees, 1u);
}

}  // namespace
}  // namespace devplan
