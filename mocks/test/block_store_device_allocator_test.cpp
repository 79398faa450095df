#include <mocks/block_store_device_allocator.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace devplan {
namespace {

std::vector<uint8_t> read(const BlockStoreDeviceAllocator& host, const void* block, size_t n) {
  std::vector<uint8_t> bytes(n, 0);
  host.read_held(block, block, n, bytes.data());
  return bytes;
}

TEST(BlockStoreDeviceAllocatorTest, AllocatesAlignedBlocksFilledWithTheFreshPattern) {
  BlockStoreDeviceAllocator host(DeviceType::CPU);
  EXPECT_EQ(host.device_type(), DeviceType::CPU);
  Result<void*> p = host.allocate(24, 3, 256);
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_TRUE(is_aligned(*p, 256));
  EXPECT_EQ(read(host, *p, 24), std::vector<uint8_t>(24, 0xCD));
  std::optional<LiveBlock> block = host.find_live_block(*p);
  ASSERT_TRUE(block.has_value());
  EXPECT_EQ(block->size, 24u);
  EXPECT_EQ(block->index, 3);
  host.deallocate(*p, 3);
  EXPECT_FALSE(host.find_live_block(*p).has_value());
}

TEST(BlockStoreDeviceAllocatorTest, RejectsBadAlignmentAndAbsurdSizes) {
  BlockStoreDeviceAllocator host;
  Result<void*> bad = host.allocate(48, 0, 3);
  EXPECT_EQ(bad.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(bad.error().message(),
            "BlockStoreDeviceAllocator::allocate: alignment 3 for 48 bytes on cuda:0 is not a "
            "power of two");
  Result<void*> absurd = host.allocate(SIZE_MAX - 8, 1);
  EXPECT_EQ(absurd.code(), ErrorCode::MemoryAllocationFailed);
  EXPECT_EQ(absurd.error().message(), "BlockStoreDeviceAllocator::allocate: host memory for " +
                                          std::to_string(SIZE_MAX - 8) +
                                          " bytes on cuda:1 could not be allocated");
}

TEST(BlockStoreDeviceAllocatorTest, FreedBlocksArePoisonedQuarantinedAndReleasedOldestFirst) {
  BlockStoreDeviceAllocator host;
  std::vector<const void*> released;
  host.set_release_listener([&](const void* ptr) { released.push_back(ptr); });
  host.set_quarantine_limits(1000, 2);
  void* p1 = *host.allocate(100, 0);
  void* p2 = *host.allocate(100, 0);
  void* p3 = *host.allocate(100, 0);
  host.deallocate(p1, 0);
  host.deallocate(p2, 0);
  EXPECT_TRUE(host.is_quarantined(p1));
  EXPECT_EQ(read(host, p2, 100), std::vector<uint8_t>(100, 0xDD));
  host.deallocate(p3, 0);
  EXPECT_FALSE(host.is_quarantined(p1));
  EXPECT_EQ(released, std::vector<const void*>{p1});
  host.deallocate(p3, 0);               // a second free is ignored
  host.set_quarantine_limits(150, 10);  // by bytes: only the newest 100-byte block fits
  EXPECT_EQ(released, (std::vector<const void*>{p1, p2}));
  host.release_quarantine();
  EXPECT_EQ(released, (std::vector<const void*>{p1, p2, p3}));
}

TEST(BlockStoreDeviceAllocatorTest, WithoutQuarantineOrPatternsBlocksGoBackAtOnceUnfilled) {
  BlockStoreDeviceAllocator host;
  int releases = 0;
  host.set_release_listener([&](const void*) { ++releases; });
  host.set_fill_patterns(false);
  void* p = *host.allocate(8, 0);
  std::memset(p, 0x11, 8);
  host.deallocate(p, 0);
  EXPECT_EQ(read(host, p, 8), std::vector<uint8_t>(8, 0x11));  // quarantined, not overwritten
  host.set_quarantine_limits(0, 0);
  EXPECT_EQ(releases, 1);
  void* q = *host.allocate(8, 0);
  host.deallocate(q, 0);
  EXPECT_EQ(releases, 2);
  EXPECT_FALSE(host.is_quarantined(q));
}

TEST(BlockStoreDeviceAllocatorTest, CopiesAreMemcpyAndUnknownFreesAreIgnored) {
  BlockStoreDeviceAllocator host;
  void* p = *host.allocate(4, 0);
  const uint8_t in[4] = {1, 2, 3, 4};
  uint8_t out[4] = {};
  ASSERT_TRUE(host.copy_host_to_device(p, in, 4, 0).ok());
  ASSERT_TRUE(host.copy_device_to_host(out, p, 4, 0).ok());
  EXPECT_EQ(std::vector<uint8_t>(out, out + 4), (std::vector<uint8_t>{1, 2, 3, 4}));
  int on_stack = 0;
  host.deallocate(&on_stack, 0);
  EXPECT_TRUE(host.find_live_block(p).has_value());
  host.deallocate_sized(p, 4, 0);
  EXPECT_TRUE(host.is_quarantined(p));
}

}  // namespace
}  // namespace devplan
