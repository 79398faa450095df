#include <runtime_ext/executor/kernels/broadcast.h>

#include <gtest/gtest.h>

namespace devplan {
namespace {

TEST(BroadcastTest, Shapes) {
  std::vector<int32_t> out;
  ASSERT_TRUE(broadcast_shape({2, 3}, {3}, &out));
  EXPECT_EQ(out, (std::vector<int32_t>{2, 3}));
  ASSERT_TRUE(broadcast_shape({4, 1, 3}, {2, 1}, &out));
  EXPECT_EQ(out, (std::vector<int32_t>{4, 2, 3}));
  ASSERT_TRUE(broadcast_shape({}, {2, 2}, &out));
  EXPECT_EQ(out, (std::vector<int32_t>{2, 2}));
  ASSERT_TRUE(broadcast_shape({0, 1}, {1, 5}, &out));
  EXPECT_EQ(out, (std::vector<int32_t>{0, 5}));
  EXPECT_FALSE(broadcast_shape({2, 3}, {2}, &out));
  EXPECT_FALSE(broadcast_shape({3}, {4}, &out));
}

TEST(BroadcastTest, IndexMaps) {
  EXPECT_EQ(broadcast_index_map({3}, {2, 3}), (std::vector<int64_t>{0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(broadcast_index_map({2, 1}, {2, 3}), (std::vector<int64_t>{0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(broadcast_index_map({}, {2, 2}), (std::vector<int64_t>{0, 0, 0, 0}));
  EXPECT_EQ(broadcast_index_map({2, 2}, {2, 2}), (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(broadcast_index_map({1, 2}, {2, 1, 2}), (std::vector<int64_t>{0, 1, 0, 1}));
  EXPECT_TRUE(broadcast_index_map({1}, {0}).empty());
}

}  // namespace
}  // namespace devplan
