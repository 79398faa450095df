// PointerMap: the flat hash map of the allocate/free path, checked against std::unordered_map.
#include <mocks/pointer_map.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <unordered_map>

namespace devplan {
namespace {

const void* address(uintptr_t n) { return reinterpret_cast<const void*>(n); }

TEST(PointerMapTest, InsertFindReplaceEraseAndClear) {
  PointerMap<int> map;
  EXPECT_TRUE(map.empty());
  EXPECT_EQ(map.find(address(0x1000)), nullptr);
  EXPECT_EQ(map.find(nullptr), nullptr);
  map.insert(address(0x1000), 1);
  map.insert(address(0x2000), 2);
  map.insert(address(0x1000), 3);  // replaces
  EXPECT_EQ(map.size(), 2u);
  ASSERT_NE(map.find(address(0x1000)), nullptr);
  EXPECT_EQ(*map.find(address(0x1000)), 3);
  EXPECT_TRUE(map.erase(address(0x1000)));
  EXPECT_FALSE(map.erase(address(0x1000)));
  EXPECT_FALSE(map.erase(nullptr));
  EXPECT_EQ(map.find(address(0x1000)), nullptr);
  EXPECT_EQ(*map.find(address(0x2000)), 2);
  map.clear();
  EXPECT_EQ(map.size(), 0u);
  EXPECT_EQ(map.find(address(0x2000)), nullptr);
}

// Random inserts and erases over a small key range (long probe runs, wrap-around at the end of
// the table, growth from 64 slots) agree with std::unordered_map after every step.
TEST(PointerMapTest, AgreesWithUnorderedMapUnderRandomOperations) {
  PointerMap<uint64_t> map;
  std::unordered_map<uintptr_t, uint64_t> model;
  uint64_t state = 42;
  auto next = [&state](uint64_t bound) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (state >> 33) % bound;
  };
  for (uint64_t step = 0; step < 20000; ++step) {
    // Keys 16 bytes apart, as aligned blocks are; 300 of them, so the map grows and shrinks.
    const uintptr_t key = 16 * (1 + next(300));
    if (next(3) == 0) {
      EXPECT_EQ(map.erase(address(key)), model.erase(key) == 1) << step;
    } else {
      map.insert(address(key), step);
      model[key] = step;
    }
    ASSERT_EQ(map.size(), model.size()) << step;
    if (step % 97 == 0) {
      for (uintptr_t k = 16; k <= 16 * 300; k += 16) {
        const uint64_t* found = map.find(address(k));
        auto it = model.find(k);
        ASSERT_EQ(found != nullptr, it != model.end()) << "key " << k << " step " << step;
        if (found != nullptr) ASSERT_EQ(*found, it->second);
      }
    }
  }
  size_t visited = 0;
  map.for_each([&](const void* ptr, uint64_t value) {
    ++visited;
    EXPECT_EQ(model.at(reinterpret_cast<uintptr_t>(ptr)), value);
  });
  EXPECT_EQ(visited, model.size());
}

}  // namespace
}  // namespace devplan
