// TrackingDeviceAllocator: misuse (bad frees and bad copies) is recorded, never performed.
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

}  // namespace
}  // namespace devplan
