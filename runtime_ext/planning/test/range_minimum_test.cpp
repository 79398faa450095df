#include <runtime_ext/planning/range_minimum.h>

#include <gtest/gtest.h>

#include <algorithm>

namespace devplan {
namespace {

TEST(RangeMinimumTest, SmallArray) {
  RangeMinimum rmq({5, 2, 7, 1});
  EXPECT_EQ(rmq.min(0, 0), 5);
  EXPECT_EQ(rmq.min(0, 2), 2);
  EXPECT_EQ(rmq.min(2, 2), 7);
  EXPECT_EQ(rmq.min(2, 3), 1);
}

// Every range of arrays that span one block, a few blocks and many, against a scan: ranges
// inside a block, across two neighbouring blocks, and over whole blocks between.
TEST(RangeMinimumTest, EveryRangeMatchesAScan) {
  uint64_t state = 3;
  auto next = [&state](uint64_t bound) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (state >> 33) % bound;
  };
  for (size_t n : {size_t{1}, size_t{63}, size_t{64}, size_t{65}, size_t{200}, size_t{700}}) {
    std::vector<int32_t> values(n);
    for (int32_t& v : values) v = static_cast<int32_t>(next(1000));
    RangeMinimum rmq(values);
    for (size_t a = 0; a < n; ++a) {
      int32_t expected = values[a];
      for (size_t b = a; b < n; ++b) {
        expected = std::min(expected, values[b]);
        ASSERT_EQ(rmq.min(a, b), expected) << "n=" << n << " [" << a << ", " << b << "]";
      }
    }
  }
}

}  // namespace
}  // namespace devplan
