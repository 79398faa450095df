#include <runtime_ext/core/text_join.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace devplan {
namespace {

TEST(TextJoinTest, JoinsWithTheSeparatorBetweenItemsOnly) {
  const std::vector<std::string> none;
  const std::vector<std::string> one = {"a"};
  const std::vector<std::string> three = {"a", "b", "c"};
  EXPECT_EQ(join(none, ", "), "");
  EXPECT_EQ(join(one, ", "), "a");
  EXPECT_EQ(join(three, "; "), "a; b; c");
}

TEST(TextJoinTest, FormatsEachItem) {
  const std::vector<int32_t> dims = {2, -1, 30};
  EXPECT_EQ(join(dims, ", ", [](int32_t d) { return std::to_string(d); }), "2, -1, 30");
}

TEST(TextJoinTest, PointersAreLowerCaseHex) {
  EXPECT_EQ(pointer_text(nullptr), "0x0");
  EXPECT_EQ(pointer_text(reinterpret_cast<const void*>(uintptr_t{0xABCDEF0})), "0xabcdef0");
}

}  // namespace
}  // namespace devplan
