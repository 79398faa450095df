#include <mocks/block_quarantine.h>

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

namespace devplan {
namespace {

std::vector<size_t> blocks_of(const std::vector<BlockQuarantine::Entry>& entries) {
  std::vector<size_t> blocks;
  for (const BlockQuarantine::Entry& e : entries) blocks.push_back(e.block);
  return blocks;
}

TEST(BlockQuarantineTest, ReleasesOldestFirstByCountAndBytesAcrossWrapsAndGrowth) {
  BlockQuarantine quarantine(1000, 3);
  std::vector<BlockQuarantine::Entry> released;
  auto release = [&](const BlockQuarantine::Entry& e) { released.push_back(e); };
  for (size_t block = 1; block <= 40; ++block) {  // wraps the ring many times
    quarantine.push({nullptr, 10, block});
    quarantine.evict_over_limits(release);
  }
  ASSERT_EQ(released.size(), 37u);
  for (size_t i = 0; i < released.size(); ++i) EXPECT_EQ(released[i].block, i + 1);
  released.clear();

  quarantine.set_limits(1000, 100);  // now grows past its first capacity
  for (size_t block = 41; block <= 90; ++block) quarantine.push({nullptr, 10, block});
  quarantine.evict_over_limits(release);
  EXPECT_TRUE(released.empty());  // 53 entries, 530 bytes
  quarantine.push({nullptr, 480, 91});
  quarantine.evict_over_limits(release);  // 1010 bytes: the oldest goes
  EXPECT_EQ(blocks_of(released), (std::vector<size_t>{38}));
  released.clear();
  quarantine.evict_all(release);
  ASSERT_EQ(released.size(), 53u);
  EXPECT_EQ(released.front().block, 39u);
  EXPECT_EQ(released.back().block, 91u);
  EXPECT_EQ(released.back().size, 480u);
  EXPECT_FALSE(quarantine.admits(1001));
  EXPECT_TRUE(quarantine.admits(1000));
  quarantine.set_limits(1000, 0);
  EXPECT_FALSE(quarantine.admits(0));
}

}  // namespace
}  // namespace devplan
