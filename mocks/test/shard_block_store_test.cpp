#include <mocks/shard_block_store.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include <mocks/block_registry.h>
#include <mocks/ledger_device_allocator.h>

namespace devplan {
namespace {

// A ledger over the store, sharing one registry as in a TrackingShard.
struct LedgerOverShardStore {
  BlockRegistry blocks;
  ShardBlockStore store{DeviceType::CUDA, "Shard", nullptr, &blocks};
  LedgerDeviceAllocator ledger{&store, nullptr, "Shard", &blocks};
};

std::vector<uint8_t> read(const LedgerOverShardStore& s, const void* ptr, size_t n) {
  std::vector<uint8_t> bytes(n, 0);
  const BlockRegistry::Block& block = s.blocks.at(s.blocks.index_at(ptr));
  s.store.read_held(block, ptr, n, bytes.data());
  return bytes;
}

TEST(ShardBlockStoreTest, QuarantinesAndReleasesTheLedgersBlocksOldestFirst) {
  LedgerOverShardStore s;
  s.store.set_quarantine_limits(1000, 2);
  void* p1 = *s.ledger.allocate(100, 0);
  void* p2 = *s.ledger.allocate(100, 0);
  void* p3 = *s.ledger.allocate(2000, 0);
  EXPECT_EQ(read(s, p1, 100), std::vector<uint8_t>(100, BlockMemory::kFreshPattern));
  EXPECT_EQ(s.store.find_live_block(p2)->size, 100u);
  s.ledger.deallocate(p1, 0);
  s.ledger.deallocate(p2, 0);
  EXPECT_TRUE(s.store.is_quarantined(p1));
  EXPECT_EQ(read(s, p2, 100), std::vector<uint8_t>(100, BlockMemory::kFreedPattern));
  s.ledger.deallocate(p3, 0);  // above the byte limit: released at once
  EXPECT_FALSE(s.store.is_quarantined(p3));
  EXPECT_FALSE(s.blocks.at(2).memory_held);
  void* p4 = *s.ledger.allocate(8, 0);
  s.ledger.deallocate(p4, 0);  // the third kept block: p1 goes
  EXPECT_FALSE(s.blocks.at(0).memory_held);
  EXPECT_TRUE(s.blocks.at(1).memory_held);
  EXPECT_TRUE(s.store.is_quarantined(p2));
  s.store.release_quarantine();
  EXPECT_FALSE(s.blocks.at(1).memory_held);
  EXPECT_FALSE(s.blocks.at(3).memory_held);
  EXPECT_TRUE(s.ledger.misuse().empty());
}

TEST(ShardBlockStoreTest, AFreeTheLedgerDidNotRecordIsIgnored) {
  LedgerOverShardStore s;
  void* p = *s.ledger.allocate(16, 0);
  s.store.deallocate_sized(p, 16, 0);  // still live in the ledger
  EXPECT_FALSE(s.store.is_quarantined(p));
  EXPECT_TRUE(s.store.find_live_block(p).has_value());
  int on_stack = 0;
  s.store.deallocate(&on_stack, 0);
  s.ledger.deallocate(p, 0);
  EXPECT_TRUE(s.store.is_quarantined(p));
}

}  // namespace
}  // namespace devplan
