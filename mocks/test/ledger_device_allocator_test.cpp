#include <mocks/ledger_device_allocator.h>

#include <gtest/gtest.h>

#include <mocks/allocation_text.h>
#include <mocks/block_store_device_allocator.h>
#include <runtime_ext/core/allocation_owner.h>

namespace devplan {
namespace {

struct LedgerOverHost {
  LedgerOverHost() {
    host.set_release_listener([this](const void* ptr) { ledger.memory_released(ptr); });
  }
  BlockStoreDeviceAllocator host;
  LedgerDeviceAllocator ledger{&host};
};

TEST(LedgerDeviceAllocatorTest, NumbersEveryCallAndRecordsFailuresWithTheOwner) {
  LedgerOverHost s;
  void* p = nullptr;
  {
    ScopedAllocationOwner owner("forward/buffer 1");
    p = *s.ledger.allocate(48, 2, 64);
    EXPECT_FALSE(s.ledger.allocate(8, 0, 3).ok());
  }
  EXPECT_EQ(s.ledger.allocate_calls(), 2u);
  ASSERT_EQ(s.ledger.blocks().size(), 1u);
  EXPECT_EQ(format_allocation(s.ledger.blocks().at(0).record()),
            "#1 cuda:2 48 B align 64 owner forward/buffer 1");
  ASSERT_EQ(s.ledger.failed_allocations().size(), 1u);
  const FailedAllocation& failed = s.ledger.failed_allocations()[0];
  EXPECT_EQ(failed.seq, 2u);
  EXPECT_EQ(failed.owner, "forward/buffer 1");
  EXPECT_EQ(failed.code, ErrorCode::InvalidArgument);
  EXPECT_EQ(failed.reason,
            "BlockStoreDeviceAllocator::allocate: alignment 3 for 8 bytes on cuda:0 is not a "
            "power of two");
  EXPECT_FALSE(s.ledger.check_nothing_live().ok());
  EXPECT_EQ(s.ledger.check_nothing_live().message(),
            "LedgerDeviceAllocator::reset: 1 allocation is still live (#1)");
  s.ledger.deallocate(p, 2);
  EXPECT_TRUE(s.ledger.check_nothing_live().ok());
  s.ledger.clear();
  EXPECT_EQ(s.ledger.allocate_calls(), 0u);
}

TEST(LedgerDeviceAllocatorTest, RecordsBadFreesAndForwardsOnlyGoodOnes) {
  LedgerOverHost s;
  void* p = *s.ledger.allocate(48, 0);
  s.ledger.deallocate(p, 1);  // wrong device: recorded, and still frees
  EXPECT_TRUE(s.host.is_quarantined(p));
  s.ledger.deallocate(p, 0);  // double free: recorded, not forwarded
  s.ledger.deallocate(static_cast<uint8_t*>(p) + 8, 0);
  const std::vector<MisuseRecord>& misuse = s.ledger.misuse();
  ASSERT_EQ(misuse.size(), 3u);
  EXPECT_EQ(misuse[0].kind, MisuseKind::WrongDeviceFree);
  EXPECT_EQ(misuse[0].message, "free on cuda:1 of #1 cuda:0 48 B owner -");
  EXPECT_EQ(misuse[1].kind, MisuseKind::DoubleFree);
  EXPECT_EQ(misuse[1].message, "double free of #1 cuda:0 48 B owner -");
  EXPECT_EQ(misuse[2].message, "free of interior pointer " +
                                   pointer_text(static_cast<uint8_t*>(p) + 8) +
                                   " (offset 8) of freed #1 cuda:0 48 B owner -");
}

TEST(LedgerDeviceAllocatorTest, ChecksBothCopyDirectionsOnOnePath) {
  LedgerOverHost s;
  void* p = *s.ledger.allocate(16, 0);
  uint8_t bytes[32] = {};
  Error past = s.ledger.copy_host_to_device(p, bytes, 32, 0);
  EXPECT_EQ(past.message(),
            "LedgerDeviceAllocator::copy_host_to_device: copy_host_to_device of 32 B at offset 0 "
            "past the end of #1 cuda:0 16 B owner -");
  Error wrong = s.ledger.copy_device_to_host(bytes, p, 4, 1);
  EXPECT_EQ(wrong.message(),
            "LedgerDeviceAllocator::copy_device_to_host: copy_device_to_host on cuda:1 of 4 B at "
            "offset 0 from #1 cuda:0 16 B owner -");
  EXPECT_EQ(s.ledger.copy_device_to_host(nullptr, p, 4, 0).message(),
            "LedgerDeviceAllocator::copy_device_to_host: host destination is null (4 B from "
            "cuda:0)");
  EXPECT_TRUE(s.ledger.copy_host_to_device(p, bytes, 16, 0).ok());
  void* q = *s.ledger.allocate(16, 0);
  s.ledger.deallocate(p, 0);
  EXPECT_EQ(s.ledger.copy_host_to_device(q, p, 4, 0).message(),
            "LedgerDeviceAllocator::copy_host_to_device: copy_host_to_device with host source " +
                pointer_text(p) + " overlapping freed #1 cuda:0 16 B owner -");
  ASSERT_EQ(s.ledger.misuse().size(), 3u);
  EXPECT_EQ(s.ledger.misuse()[2].kind, MisuseKind::HostPointerInDeviceMemory);
  s.ledger.deallocate(q, 0);
}

TEST(LedgerDeviceAllocatorTest, ReleasedBlocksNoLongerCountAsHeld) {
  LedgerOverHost s;
  void* p = *s.ledger.allocate(16, 0);
  s.ledger.deallocate(p, 0);
  ASSERT_NE(s.ledger.find_held(p), nullptr);
  EXPECT_EQ(s.ledger.find_held(p)->seq, 1u);
  s.host.release_quarantine();
  EXPECT_EQ(s.ledger.find_held(p), nullptr);
  uint8_t bytes[4] = {};
  // Still known as freed: a stale copy is refused.
  EXPECT_EQ(s.ledger.copy_host_to_device(p, bytes, 4, 0).code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(s.ledger.misuse().back().kind, MisuseKind::CopyToFreedMemory);
}

}  // namespace
}  // namespace devplan
