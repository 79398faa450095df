#include <mocks/tracking_device_allocator.h>

#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <runtime_ext/core/allocation_owner.h>
#include <runtime_ext/core/device_memory_buffer.h>

namespace devplan {
namespace {

// The pointer as the allocator writes it in messages.
std::string hex(const void* ptr) {
  char text[32];
  std::snprintf(text, sizeof(text), "0x%" PRIxPTR, reinterpret_cast<uintptr_t>(ptr));
  return text;
}

void* must_allocate(TrackingDeviceAllocator& a, size_t nbytes, DeviceIndex index = 0,
                    size_t alignment = kDefaultAlignment) {
  Result<void*> r = a.allocate(nbytes, index, alignment);
  EXPECT_TRUE(r.ok()) << r.error();
  return r.ok() ? *r : nullptr;
}

std::vector<uint8_t> peek_bytes(const TrackingDeviceAllocator& a, const void* ptr, size_t n) {
  std::vector<uint8_t> bytes(n, 0);
  Error err = a.peek(ptr, n, bytes.data());
  EXPECT_TRUE(err.ok()) << err;
  return bytes;
}

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

// --- misuse -------------------------------------------------------------------------------------

TEST(TrackingDeviceAllocatorTest, DetectsDoubleFree) {
  TrackingDeviceAllocator a;
  void* p = nullptr;
  {
    ScopedAllocationOwner owner("forward/buffer 1");
    p = must_allocate(a, 48);
  }
  a.deallocate(p, 0);
  a.deallocate(p, 0);
  std::vector<MisuseRecord> misuse = a.misuse();
  ASSERT_EQ(misuse.size(), 1u);
  EXPECT_EQ(misuse[0].kind, MisuseKind::DoubleFree);
  EXPECT_EQ(misuse[0].device, Device::cuda(0));
  EXPECT_EQ(misuse[0].allocation_seq, 1u);
  EXPECT_EQ(misuse[0].ptr, p);
  EXPECT_EQ(misuse[0].message, "double free of #1 cuda:0 48 B owner forward/buffer 1");
  EXPECT_EQ(a.stats(0).frees, 1u);
  EXPECT_EQ(a.stats(0).current_allocations, 0u);
}

TEST(TrackingDeviceAllocatorTest, DetectsDoubleFreeAfterTheBlockLeftTheQuarantine) {
  TrackingDeviceAllocator a;
  a.set_quarantine_limits(0, 0);
  void* p = must_allocate(a, 48);
  a.deallocate(p, 0);
  EXPECT_FALSE(a.is_quarantined(p));
  a.deallocate(p, 0);
  EXPECT_EQ(a.misuse_report(), "double free of #1 cuda:0 48 B owner -\n");
}

TEST(TrackingDeviceAllocatorTest, DetectsFreeOfUnknownAndInteriorPointers) {
  TrackingDeviceAllocator a;
  void* p = must_allocate(a, 48);
  void* q = must_allocate(a, 32);
  a.deallocate(q, 0);
  int on_stack = 0;
  a.deallocate(&on_stack, 0);
  a.deallocate(static_cast<uint8_t*>(p) + 16, 0);
  a.deallocate(static_cast<uint8_t*>(q) + 8, 1);
  std::vector<MisuseRecord> misuse = a.misuse();
  ASSERT_EQ(misuse.size(), 3u);
  EXPECT_EQ(misuse[0].kind, MisuseKind::UnknownPointer);
  EXPECT_EQ(misuse[0].allocation_seq, 0u);
  EXPECT_EQ(misuse[0].message, "free of unknown pointer " + hex(&on_stack) + " on cuda:0");
  EXPECT_EQ(misuse[1].kind, MisuseKind::UnknownPointer);
  EXPECT_EQ(misuse[1].allocation_seq, 1u);
  EXPECT_EQ(misuse[1].message, "free of interior pointer " + hex(static_cast<uint8_t*>(p) + 16) +
                                   " (offset 16) of #1 cuda:0 48 B owner -");
  EXPECT_EQ(misuse[2].kind, MisuseKind::UnknownPointer);
  EXPECT_EQ(misuse[2].device, Device::cuda(1));
  EXPECT_EQ(misuse[2].message, "free of interior pointer " + hex(static_cast<uint8_t*>(q) + 8) +
                                   " (offset 8) of freed #2 cuda:0 32 B owner -");
  // The interior free did not free the block.
  EXPECT_EQ(a.live_count(), 1u);
  a.deallocate(p, 0);
  EXPECT_EQ(a.misuse().size(), 3u);
}

TEST(TrackingDeviceAllocatorTest, IgnoresFreeOfNull) {
  TrackingDeviceAllocator a;
  a.deallocate(nullptr, 0);
  EXPECT_FALSE(a.has_misuse());
  EXPECT_EQ(a.stats(0).frees, 0u);
}

TEST(TrackingDeviceAllocatorTest, DetectsWrongDeviceFreeAndStillFrees) {
  TrackingDeviceAllocator a;
  void* p = nullptr;
  {
    ScopedAllocationOwner owner("forward/buffer 2");
    p = must_allocate(a, 48, 0);
  }
  a.deallocate(p, 1);
  std::vector<MisuseRecord> misuse = a.misuse();
  ASSERT_EQ(misuse.size(), 1u);
  EXPECT_EQ(misuse[0].kind, MisuseKind::WrongDeviceFree);
  EXPECT_EQ(misuse[0].device, Device::cuda(1));
  EXPECT_EQ(misuse[0].allocation_seq, 1u);
  EXPECT_EQ(misuse[0].message, "free on cuda:1 of #1 cuda:0 48 B owner forward/buffer 2");
  EXPECT_FALSE(a.has_leaks());
  EXPECT_EQ(a.stats(0).frees, 1u);
  EXPECT_EQ(a.stats(0).current_bytes, 0u);
  EXPECT_EQ(a.stats(1).frees, 0u);
}

TEST(TrackingDeviceAllocatorTest, DetectsCopiesPastTheEndAndCopiesNothing) {
  TrackingDeviceAllocator a;
  void* p = must_allocate(a, 48);
  std::vector<uint8_t> host(64, 0x11);
  Error h2d = a.copy_host_to_device(static_cast<uint8_t*>(p) + 16, host.data(), 64, 0);
  EXPECT_EQ(h2d.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(h2d.message(),
            "TrackingDeviceAllocator::copy_host_to_device: copy_host_to_device "
            "of 64 B at offset 16 past the end of #1 cuda:0 48 B owner -");
  EXPECT_EQ(peek_bytes(a, p, 48), std::vector<uint8_t>(48, 0xCD));

  Error d2h = a.copy_device_to_host(host.data(), p, 49, 0);
  EXPECT_EQ(d2h.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(host, std::vector<uint8_t>(64, 0x11));
  // The whole block, and the last byte, are in bounds.
  EXPECT_TRUE(a.copy_device_to_host(host.data(), p, 48, 0).ok());
  EXPECT_TRUE(a.copy_host_to_device(static_cast<uint8_t*>(p) + 47, host.data(), 1, 0).ok());

  std::vector<MisuseRecord> misuse = a.misuse();
  ASSERT_EQ(misuse.size(), 2u);
  EXPECT_EQ(misuse[0].kind, MisuseKind::CopyOutOfBounds);
  EXPECT_EQ(misuse[0].allocation_seq, 1u);
  EXPECT_EQ(misuse[0].ptr, static_cast<uint8_t*>(p) + 16);
  EXPECT_EQ(misuse[1].kind, MisuseKind::CopyOutOfBounds);
  EXPECT_EQ(misuse[1].message,
            "copy_device_to_host of 49 B at offset 0 past the end of #1 cuda:0 48 B owner -");
  EXPECT_EQ(a.stats(0).device_to_host_copies, 1u);
  EXPECT_EQ(a.stats(0).host_to_device_copies, 1u);
  a.deallocate(p, 0);
}

TEST(TrackingDeviceAllocatorTest, DetectsCopiesIntoAndOutOfFreedMemory) {
  TrackingDeviceAllocator a;
  void* p = nullptr;
  {
    ScopedAllocationOwner owner("forward/buffer 1");
    p = must_allocate(a, 48);
  }
  a.deallocate(p, 0);
  uint8_t host[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  Error h2d = a.copy_host_to_device(static_cast<uint8_t*>(p) + 8, host, 8, 0);
  EXPECT_EQ(h2d.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(h2d.message(),
            "TrackingDeviceAllocator::copy_host_to_device: copy_host_to_device "
            "of 8 B at offset 8 into freed #1 cuda:0 48 B owner forward/buffer 1");
  // The quarantined block still holds only the freed pattern.
  EXPECT_EQ(peek_bytes(a, p, 48), std::vector<uint8_t>(48, 0xDD));

  Error d2h = a.copy_device_to_host(host, p, 8, 0);
  EXPECT_EQ(d2h.code(), ErrorCode::InvalidArgument);
  const uint8_t unchanged[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_EQ(std::memcmp(host, unchanged, 8), 0);

  std::vector<MisuseRecord> misuse = a.misuse();
  ASSERT_EQ(misuse.size(), 2u);
  EXPECT_EQ(misuse[0].kind, MisuseKind::CopyToFreedMemory);
  EXPECT_EQ(misuse[0].allocation_seq, 1u);
  EXPECT_EQ(misuse[1].kind, MisuseKind::CopyFromFreedMemory);
  EXPECT_EQ(misuse[1].message,
            "copy_device_to_host of 8 B at offset 0 from freed #1 cuda:0 48 B owner "
            "forward/buffer 1");
}

TEST(TrackingDeviceAllocatorTest, DetectsCopiesToPointersOutsideEveryAllocation) {
  TrackingDeviceAllocator a;
  void* p = must_allocate(a, 16);
  uint8_t elsewhere[16] = {};
  uint8_t host[4] = {};
  Error h2d = a.copy_host_to_device(elsewhere, host, 4, 0);
  EXPECT_EQ(h2d.code(), ErrorCode::InvalidArgument);
  Error d2h = a.copy_device_to_host(host, nullptr, 4, 3);
  EXPECT_EQ(d2h.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(d2h.message(),
            "TrackingDeviceAllocator::copy_device_to_host: copy_device_to_host "
            "of 4 B from unknown pointer 0x0 on cuda:3");
  std::vector<MisuseRecord> misuse = a.misuse();
  ASSERT_EQ(misuse.size(), 2u);
  EXPECT_EQ(misuse[0].kind, MisuseKind::CopyUnknownPointer);
  EXPECT_EQ(misuse[0].allocation_seq, 0u);
  EXPECT_EQ(misuse[0].message,
            "copy_host_to_device of 4 B to unknown pointer " + hex(elsewhere) + " on cuda:0");
  EXPECT_EQ(misuse[1].kind, MisuseKind::CopyUnknownPointer);
  EXPECT_EQ(misuse[1].device, Device::cuda(3));
  EXPECT_EQ(elsewhere[0], 0);
  a.deallocate(p, 0);
}

TEST(TrackingDeviceAllocatorTest, DetectsCopiesOnTheWrongDevice) {
  TrackingDeviceAllocator a;
  void* p = must_allocate(a, 32, 1);
  uint8_t host[4] = {9, 9, 9, 9};
  Error h2d = a.copy_host_to_device(static_cast<uint8_t*>(p) + 4, host, 4, 0);
  EXPECT_EQ(h2d.code(), ErrorCode::InvalidArgument);
  Error d2h = a.copy_device_to_host(host, p, 4, 2);
  EXPECT_EQ(d2h.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(a.misuse_report(),
            "copy_host_to_device on cuda:0 of 4 B at offset 4 into #1 cuda:1 32 B owner -\n"
            "copy_device_to_host on cuda:2 of 4 B at offset 0 from #1 cuda:1 32 B owner -\n");
  std::vector<MisuseRecord> misuse = a.misuse();
  ASSERT_EQ(misuse.size(), 2u);
  EXPECT_EQ(misuse[0].kind, MisuseKind::CopyWrongDevice);
  EXPECT_EQ(misuse[0].device, Device::cuda(0));
  EXPECT_EQ(misuse[1].kind, MisuseKind::CopyWrongDevice);
  EXPECT_EQ(peek_bytes(a, p, 32), std::vector<uint8_t>(32, 0xCD));
  a.deallocate(p, 1);
}

TEST(TrackingDeviceAllocatorTest, DetectsHostPointersIntoDeviceMemory) {
  TrackingDeviceAllocator a;
  void* dst = must_allocate(a, 16);
  void* other = must_allocate(a, 16);
  Error h2d = a.copy_host_to_device(dst, other, 16, 0);
  EXPECT_EQ(h2d.code(), ErrorCode::InvalidArgument);
  // A host range that only partly overlaps a block counts too.
  Error d2h = a.copy_device_to_host(static_cast<uint8_t*>(other) + 8, dst, 16, 0);
  EXPECT_EQ(d2h.code(), ErrorCode::InvalidArgument);
  a.deallocate(other, 0);
  Error freed = a.copy_host_to_device(dst, other, 4, 0);
  EXPECT_EQ(freed.code(), ErrorCode::InvalidArgument);

  std::vector<MisuseRecord> misuse = a.misuse();
  ASSERT_EQ(misuse.size(), 3u);
  EXPECT_EQ(misuse[0].kind, MisuseKind::HostPointerInDeviceMemory);
  EXPECT_EQ(misuse[0].allocation_seq, 2u);
  EXPECT_EQ(misuse[0].message, "copy_host_to_device with host source " + hex(other) +
                                   " overlapping #2 cuda:0 16 B "
                                   "owner -");
  EXPECT_EQ(misuse[1].kind, MisuseKind::HostPointerInDeviceMemory);
  EXPECT_EQ(misuse[1].message, "copy_device_to_host with host destination " +
                                   hex(static_cast<uint8_t*>(other) + 8) +
                                   " overlapping #2 cuda:0 16 B owner -");
  EXPECT_EQ(misuse[2].message, "copy_host_to_device with host source " + hex(other) +
                                   " overlapping freed #2 cuda:0 16 B owner -");
  a.deallocate(dst, 0);
}

TEST(TrackingDeviceAllocatorTest, NamesEveryMisuseKind) {
  EXPECT_STREQ(misuse_kind_name(MisuseKind::DoubleFree), "DoubleFree");
  EXPECT_STREQ(misuse_kind_name(MisuseKind::UnknownPointer), "UnknownPointer");
  EXPECT_STREQ(misuse_kind_name(MisuseKind::WrongDeviceFree), "WrongDeviceFree");
  EXPECT_STREQ(misuse_kind_name(MisuseKind::CopyOutOfBounds), "CopyOutOfBounds");
  EXPECT_STREQ(misuse_kind_name(MisuseKind::CopyToFreedMemory), "CopyToFreedMemory");
  EXPECT_STREQ(misuse_kind_name(MisuseKind::CopyFromFreedMemory), "CopyFromFreedMemory");
  EXPECT_STREQ(misuse_kind_name(MisuseKind::CopyUnknownPointer), "CopyUnknownPointer");
  EXPECT_STREQ(misuse_kind_name(MisuseKind::CopyWrongDevice), "CopyWrongDevice");
  EXPECT_STREQ(misuse_kind_name(MisuseKind::HostPointerInDeviceMemory),
               "HostPointerInDeviceMemory");
  EXPECT_STREQ(misuse_kind_name(static_cast<MisuseKind>(200)), "Unknown");
}

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
