#include <runtime_ext/planning/placement_engine.h>

#include <gtest/gtest.h>

namespace devplan {
namespace {

using Fit = PlacementEngine::Fit;

TEST(PlacementEngineTest, LowestFitSkipsOnlyTimeOverlappingItems) {
  // item: size, lifetime
  // 0: 16 [0, 2]; 1: 32 [1, 3]; 2: 16 [3, 4]; 3: 48 [5, 6]
  PlacementEngine e({16, 32, 16, 48}, {0, 1, 3, 5}, {2, 3, 4, 6});
  std::vector<uint64_t> offsets;
  EXPECT_EQ(e.place({0, 1, 2, 3}, Fit::kLowest, UINT64_MAX, &offsets), 48u);
  // 1 overlaps 0 -> above it; 2 overlaps 1 only -> in the gap below 1; 3 overlaps nothing.
  EXPECT_EQ(offsets, (std::vector<uint64_t>{0, 16, 0, 0}));
  EXPECT_EQ(e.num_steps(), 7);
}

TEST(PlacementEngineTest, BestFitPicksTheSmallestGap) {
  // Fixed: 0 at [0, 48), 1 at [64, 80), 2 at [80, 96) except a 48-byte gap at [0, 48) once 0 is
  // gone... build: items 0..3 live at step 0; 0 and 2 end at step 0, leaving gaps.
  PlacementEngine e({48, 16, 16, 16, 16}, {0, 0, 0, 0, 1}, {0, 1, 0, 1, 1});
  e.add(1, 48);  // [48, 64) steps 0..1
  e.add(3, 80);  // [80, 96) steps 0..1
  // At step 1 the free gaps are [0, 48) and [64, 80).
  EXPECT_EQ(e.fit_offset(4, Fit::kLowest), 0u);
  EXPECT_EQ(e.fit_offset(4, Fit::kBest), 64u);
  e.add(4, 64);
  // No gap of 48 left at step 0..1 except [0, 48).
  EXPECT_EQ(e.fit_offset(0, Fit::kBest), 0u);
  EXPECT_TRUE(e.placed(4));
  e.remove(4);
  EXPECT_FALSE(e.placed(4));
  EXPECT_EQ(e.fit_offset(4, Fit::kBest), 64u);
}

TEST(PlacementEngineTest, NoGapMeansTheTop) {
  PlacementEngine e({16, 16, 16}, {0, 0, 0}, {0, 0, 0});
  std::vector<uint64_t> offsets;
  EXPECT_EQ(e.place({2, 1, 0}, Fit::kBest, UINT64_MAX, &offsets), 48u);
  EXPECT_EQ(offsets, (std::vector<uint64_t>{32, 16, 0}));
}

TEST(PlacementEngineTest, AbortsPastTheLimitAndKeepsAPrefix) {
  PlacementEngine e({16, 16, 16}, {0, 0, 0}, {0, 0, 0});
  std::vector<uint64_t> offsets;
  EXPECT_EQ(e.place({0, 1, 2}, Fit::kLowest, 32, &offsets), PlacementEngine::kAborted);
  // Keep item 2 where it is (at 0) and place the rest after it.
  offsets = {0, 0, 0};
  EXPECT_EQ(e.place({2, 0, 1}, Fit::kLowest, UINT64_MAX, &offsets, 1), 48u);
  EXPECT_EQ(offsets, (std::vector<uint64_t>{16, 32, 0}));
}

TEST(PlacementEngineTest, TotalEqualToTheLimitIsKeptOneByteLessAborts) {
  PlacementEngine e({16, 16, 16}, {0, 0, 0}, {0, 0, 0});
  std::vector<uint64_t> offsets;
  EXPECT_EQ(e.place({0, 1, 2}, Fit::kLowest, 48, &offsets), 48u);
  EXPECT_EQ(offsets, (std::vector<uint64_t>{0, 16, 32}));
  EXPECT_EQ(e.place({0, 1, 2}, Fit::kLowest, 47, &offsets), PlacementEngine::kAborted);
}

TEST(PlacementEngineTest, KeptPrefixAloneIsCheckedAgainstTheLimit) {
  PlacementEngine e({16, 16, 16}, {0, 0, 0}, {0, 0, 0});
  std::vector<uint64_t> offsets = {0, 16, 32};
  // Every item kept where it is: the prefix's end is the total.
  EXPECT_EQ(e.place({0, 1, 2}, Fit::kLowest, 48, &offsets, 3), 48u);
  EXPECT_EQ(offsets, (std::vector<uint64_t>{0, 16, 32}));
  EXPECT_EQ(e.place({0, 1, 2}, Fit::kLowest, 47, &offsets, 3), PlacementEngine::kAborted);
}

TEST(PlacementEngineTest, CollectFindsEachOverlappingItemOnce) {
  // Item 0 spans many buckets; 1 and 2 are short.
  PlacementEngine e({16, 16, 16, 16}, {0, 2, 30, 9}, {40, 3, 31, 9});
  e.add(0, 0);
  e.add(1, 16);
  e.add(2, 16);
  std::vector<int32_t> out;
  e.collect(3, 29, &out);
  EXPECT_EQ(out, (std::vector<int32_t>{0, 1}));
  out.clear();
  e.collect(-5, 100, &out);
  EXPECT_EQ(out, (std::vector<int32_t>{0, 1, 2}));
  out.clear();
  e.collect(32, 35, &out);
  EXPECT_EQ(out, (std::vector<int32_t>{0}));
}

}  // namespace
}  // namespace devplan
