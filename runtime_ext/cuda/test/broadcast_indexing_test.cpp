#include <gtest/gtest.h>

#include <vector>

#include <runtime_ext/cuda/broadcast_indexing.h>

namespace devplan {
namespace {

std::vector<int64_t> first(const int64_t* values, int n) { return {values, values + n}; }

TEST(BroadcastIndexing, EqualShapesAreContiguousStrides) {
  const auto ix = broadcast_indexing({2, 3, 4}, {2, 3, 4}, {2, 3, 4});
  ASSERT_TRUE(ix.has_value());
  EXPECT_EQ(ix->dims, 3);
  EXPECT_EQ(first(ix->out_sizes, 3), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(first(ix->a_strides, 3), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_EQ(first(ix->b_strides, 3), (std::vector<int64_t>{12, 4, 1}));
}

TEST(BroadcastIndexing, BroadcastDimensionsHaveStrideZero) {
  const auto ix = broadcast_indexing({4, 1}, {3}, {4, 3});
  ASSERT_TRUE(ix.has_value());
  EXPECT_EQ(ix->dims, 2);
  EXPECT_EQ(first(ix->a_strides, 2), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(first(ix->b_strides, 2), (std::vector<int64_t>{0, 1}));
  const auto scalar = broadcast_indexing({}, {2, 2}, {2, 2});
  ASSERT_TRUE(scalar.has_value());
  EXPECT_EQ(first(scalar->a_strides, 2), (std::vector<int64_t>{0, 0}));
  const auto rank0 = broadcast_indexing({}, {}, {});
  ASSERT_TRUE(rank0.has_value());
  EXPECT_EQ(rank0->dims, 0);
}

TEST(BroadcastIndexing, ShapesThatDoNotBroadcastToOutAreRefused) {
  EXPECT_FALSE(broadcast_indexing({2, 3}, {3, 2}, {2, 3}).has_value());
  EXPECT_FALSE(broadcast_indexing({1}, {1}, {5}).has_value());  // out is not the broadcast
  EXPECT_FALSE(broadcast_indexing({2, 2, 2}, {2}, {2, 2}).has_value());
  EXPECT_FALSE(broadcast_indexing({-1}, {1}, {1}).has_value());
  EXPECT_FALSE(broadcast_indexing({1}, {1}, {-1}).has_value());
  const std::vector<int32_t> nine(9, 1);
  EXPECT_FALSE(broadcast_indexing(nine, nine, nine).has_value());
  const std::vector<int32_t> eight(8, 1);
  EXPECT_TRUE(broadcast_indexing(eight, eight, eight).has_value());
}

TEST(BroadcastIndexing, ZeroSizedDimensionsBroadcastLikeAnyOther) {
  const auto ix = broadcast_indexing({0, 1}, {1, 3}, {0, 3});
  ASSERT_TRUE(ix.has_value());
  EXPECT_EQ(first(ix->out_sizes, 2), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(first(ix->a_strides, 2), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(first(ix->b_strides, 2), (std::vector<int64_t>{0, 1}));
}

}  // namespace
}  // namespace devplan
