#include <mocks/unload_bug_allocator.h>

#include <gtest/gtest.h>

#include <mocks/tracking_device_allocator.h>
#include <runtime_ext/core/allocation_owner.h>

namespace devplan {
namespace {

// One 48-byte block on cuda:2 (an index other than 0, so that "the next index" is 3, not 1),
// freed through an UnloadBugAllocator with `bug`.
class UnloadBugAllocatorTest : public ::testing::Test {
 protected:
  void allocate_and_free(UnloadBug bug) {
    UnloadBugAllocator buggy(&tracking_, bug);
    ScopedAllocationOwner owner("forward/buffer 1");
    Result<void*> ptr = buggy.allocate(48, 2, 16);
    ASSERT_TRUE(ptr.ok()) << ptr.error().to_string();
    buggy.deallocate(*ptr, 2);
  }

  TrackingDeviceAllocator tracking_;
};

TEST_F(UnloadBugAllocatorTest, NoneForwardsTheFree) {
  allocate_and_free(UnloadBug::None);
  EXPECT_FALSE(tracking_.has_leaks());
  EXPECT_FALSE(tracking_.has_misuse());
  EXPECT_EQ(tracking_.stats(2).frees, 1u);
}

TEST_F(UnloadBugAllocatorTest, SkipFreeLeaksTheBlock) {
  allocate_and_free(UnloadBug::SkipFree);
  EXPECT_EQ(tracking_.leak_report(), "#1 cuda:2 48 B align 16 owner forward/buffer 1\n");
  EXPECT_FALSE(tracking_.has_misuse());
  EXPECT_EQ(tracking_.stats(2).frees, 0u);
  tracking_.deallocate(const_cast<void*>(tracking_.live_allocations()[0].ptr), 2);
}

TEST_F(UnloadBugAllocatorTest, DoubleFreeFreesTwice) {
  allocate_and_free(UnloadBug::DoubleFree);
  EXPECT_FALSE(tracking_.has_leaks());
  ASSERT_EQ(tracking_.misuse().size(), 1u);
  EXPECT_EQ(tracking_.misuse()[0].kind, MisuseKind::DoubleFree);
  EXPECT_EQ(tracking_.misuse()[0].message, "double free of #1 cuda:2 48 B owner forward/buffer 1");
  EXPECT_EQ(tracking_.stats(2).frees, 1u);
}

TEST_F(UnloadBugAllocatorTest, WrongIndexFreeUsesTheNextIndex) {
  allocate_and_free(UnloadBug::WrongIndexFree);
  EXPECT_FALSE(tracking_.has_leaks());  // the tracking allocator frees the block anyway
  ASSERT_EQ(tracking_.misuse().size(), 1u);
  EXPECT_EQ(tracking_.misuse()[0].kind, MisuseKind::WrongDeviceFree);
  EXPECT_EQ(tracking_.misuse()[0].device, Device::cuda(3));
  EXPECT_EQ(tracking_.misuse()[0].message,
            "free on cuda:3 of #1 cuda:2 48 B owner forward/buffer 1");
}

TEST_F(UnloadBugAllocatorTest, WrongIndexFreeWrapsAfterTheLastIndex) {
  UnloadBugAllocator buggy(&tracking_, UnloadBug::WrongIndexFree);
  void* ptr = *buggy.allocate(16, kMaxDeviceIndex, 16);
  buggy.deallocate(ptr, kMaxDeviceIndex);
  ASSERT_EQ(tracking_.misuse().size(), 1u);
  EXPECT_EQ(tracking_.misuse()[0].device, Device::cuda(0));
}

TEST_F(UnloadBugAllocatorTest, NullFreesAreForwardedUnchanged) {
  UnloadBugAllocator buggy(&tracking_, UnloadBug::DoubleFree);
  buggy.deallocate(nullptr, 0);
  EXPECT_FALSE(tracking_.has_misuse());
}

TEST_F(UnloadBugAllocatorTest, AllocationsAndCopiesAreForwarded) {
  UnloadBugAllocator buggy(&tracking_, UnloadBug::SkipFree);
  EXPECT_EQ(buggy.device_type(), DeviceType::CUDA);
  void* ptr = *buggy.allocate(4, 1, 64);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(ptr) % 64, 0u);
  const uint8_t in[4] = {1, 2, 3, 4};
  uint8_t out[4] = {};
  ASSERT_TRUE(buggy.copy_host_to_device(ptr, in, 4, 1).ok());
  ASSERT_TRUE(buggy.copy_device_to_host(out, ptr, 4, 1).ok());
  EXPECT_EQ(out[3], 4);
  EXPECT_EQ(tracking_.stats(1).host_to_device_bytes, 4u);
  EXPECT_EQ(tracking_.stats(1).device_to_host_bytes, 4u);
  tracking_.deallocate(ptr, 1);
}

TEST(UnloadBugNameTest, NamesRoundTrip) {
  for (UnloadBug bug :
       {UnloadBug::None, UnloadBug::SkipFree, UnloadBug::DoubleFree, UnloadBug::WrongIndexFree}) {
    Result<UnloadBug> parsed = parse_unload_bug(unload_bug_name(bug));
    ASSERT_TRUE(parsed.ok()) << unload_bug_name(bug);
    EXPECT_EQ(*parsed, bug);
  }
  EXPECT_EQ(std::string(unload_bug_name(UnloadBug::WrongIndexFree)), "wrong-index-free");
}

TEST(UnloadBugNameTest, UnknownNameIsAnErrorNamingTheChoices) {
  Result<UnloadBug> parsed = parse_unload_bug("skip_free");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(parsed.error().message(),
            "unknown unload bug 'skip_free' (expected none, skip-free, double-free or "
            "wrong-index-free)");
}

}  // namespace
}  // namespace devplan
