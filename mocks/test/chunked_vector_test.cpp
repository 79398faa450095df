#include <mocks/chunked_vector.h>

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

namespace devplan {
namespace {

struct Item {
  size_t value = 7;  // value-initialized elements start at 7
  std::string text;
};

TEST(ChunkedVectorTest, IndexesAcrossChunksAndKeepsElementsInPlace) {
  ChunkedVector<Item, 2> items;  // chunks of 4
  EXPECT_TRUE(items.empty());
  Item& first = items.emplace_back();
  EXPECT_EQ(first.value, 7u);
  first.value = 0;
  std::vector<const Item*> addresses{&first};
  for (size_t i = 1; i < 10; ++i) {
    Item& item = items.emplace_back();
    item.value = i;
    item.text = "item " + std::to_string(i);
    addresses.push_back(&item);
  }
  ASSERT_EQ(items.size(), 10u);
  for (size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(items[i].value, i);
    EXPECT_EQ(&items[i], addresses[i]);  // growing moved nothing
  }
  EXPECT_EQ(items.back().text, "item 9");
  items.clear();
  EXPECT_EQ(items.size(), 0u);
  EXPECT_EQ(items.emplace_back().value, 7u);
  EXPECT_EQ(items.size(), 1u);
}

}  // namespace
}  // namespace devplan
