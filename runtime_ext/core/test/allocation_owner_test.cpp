#include <runtime_ext/core/allocation_owner.h>

#include <gtest/gtest.h>

#include <thread>

namespace devplan {
namespace {

TEST(AllocationOwnerTest, NestedScopesRestore) {
  EXPECT_EQ(current_allocation_owner(), "");
  {
    ScopedAllocationOwner outer("forward/buffer 1");
    EXPECT_EQ(current_allocation_owner(), "forward/buffer 1");
    {
      ScopedAllocationOwner inner("forward/buffer 2");
      EXPECT_EQ(current_allocation_owner(), "forward/buffer 2");
    }
    EXPECT_EQ(current_allocation_owner(), "forward/buffer 1");
  }
  EXPECT_EQ(current_allocation_owner(), "");
}

TEST(AllocationOwnerTest, OwnerIsPerThread) {
  ScopedAllocationOwner owner("main thread");
  std::string seen = "unset";
  std::thread([&] { seen = current_allocation_owner(); }).join();
  EXPECT_EQ(seen, "");
  EXPECT_EQ(current_allocation_owner(), "main thread");
}

}  // namespace
}  // namespace devplan
