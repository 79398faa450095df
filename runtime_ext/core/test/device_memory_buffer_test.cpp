#include <runtime_ext/core/device_memory_buffer.h>

#include <gtest/gtest.h>

#include <utility>

#include "counting_allocator.h"

namespace devplan {
namespace {

using testing::CountingAllocator;

class DeviceMemoryBufferTest : public ::testing::Test {
 protected:
  DeviceAllocatorRegistry registry_;
  CountingAllocator cuda_;
  void SetUp() override { ASSERT_TRUE(registry_.register_allocator(&cuda_).ok()); }
  DeviceMemoryBuffer make(size_t size, DeviceIndex index = 0) {
    Result<DeviceMemoryBuffer> r =
        DeviceMemoryBuffer::create(size, DeviceType::CUDA, index, kDefaultAlignment, registry_);
    EXPECT_TRUE(r.ok()) << r.error();
    return std::move(r).value();
  }
};

TEST_F(DeviceMemoryBufferTest, CreateAllocatesOnTheRequestedIndex) {
  DeviceMemoryBuffer buf = make(48, 3);
  EXPECT_NE(buf.data(), nullptr);
  EXPECT_EQ(buf.size(), 48u);
  EXPECT_EQ(buf.device(), Device::cuda(3));
  EXPECT_EQ(buf.allocator(), &cuda_);
  EXPECT_EQ(buf.as_span().data(), buf.data());
  EXPECT_EQ(buf.as_span().size(), 48u);
  EXPECT_EQ(cuda_.allocate_calls, 1);
  EXPECT_EQ(cuda_.last_index, 3);
  EXPECT_EQ(cuda_.last_alignment, kDefaultAlignment);
  EXPECT_EQ(cuda_.deallocate_calls, 0);
}

TEST_F(DeviceMemoryBufferTest, FreesExactlyOnceAtScopeExit) {
  void* ptr = nullptr;
  {
    DeviceMemoryBuffer buf = make(16, 2);
    ptr = buf.data();
  }
  EXPECT_EQ(cuda_.deallocate_calls, 1);
  EXPECT_EQ(cuda_.last_index, 2);
  ASSERT_EQ(cuda_.freed.size(), 1u);
  EXPECT_EQ(cuda_.freed[0], ptr);
}

TEST_F(DeviceMemoryBufferTest, MoveConstructionTransfersOwnership) {
  DeviceMemoryBuffer a = make(32);
  void* ptr = a.data();
  {
    DeviceMemoryBuffer b(std::move(a));
    EXPECT_EQ(b.data(), ptr);
    EXPECT_EQ(b.size(), 32u);
    EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move): checking moved-from state
    EXPECT_EQ(a.size(), 0u);
  }
  EXPECT_EQ(cuda_.deallocate_calls, 1);
  EXPECT_EQ(cuda_.freed[0], ptr);
}

TEST_F(DeviceMemoryBufferTest, MovedFromBufferFreesNothing) {
  {
    DeviceMemoryBuffer a = make(32);
    DeviceMemoryBuffer b(std::move(a));
    EXPECT_EQ(cuda_.deallocate_calls, 0);
  }
  EXPECT_EQ(cuda_.deallocate_calls, 1);
}

TEST_F(DeviceMemoryBufferTest, MoveAssignmentOntoLiveBufferFreesTheOldOne) {
  DeviceMemoryBuffer a = make(16, 0);
  DeviceMemoryBuffer b = make(64, 1);
  void* old_b = b.data();
  void* ptr_a = a.data();
  b = std::move(a);
  EXPECT_EQ(cuda_.deallocate_calls, 1);
  EXPECT_EQ(cuda_.freed[0], old_b);
  EXPECT_EQ(cuda_.last_index, 1);
  EXPECT_EQ(b.data(), ptr_a);
  EXPECT_EQ(b.size(), 16u);
  EXPECT_EQ(b.device(), Device::cuda(0));
  b = DeviceMemoryBuffer();
  EXPECT_EQ(cuda_.deallocate_calls, 2);
  EXPECT_EQ(cuda_.freed[1], ptr_a);
}

TEST_F(DeviceMemoryBufferTest, SelfMoveAssignmentKeepsTheBuffer) {
  DeviceMemoryBuffer a = make(16);
  void* ptr = a.data();
  DeviceMemoryBuffer& alias = a;
  a = std::move(alias);
  EXPECT_EQ(a.data(), ptr);
  EXPECT_EQ(cuda_.deallocate_calls, 0);
}

TEST_F(DeviceMemoryBufferTest, NoAllocatorIsNotFoundNamingTheDevice) {
  DeviceAllocatorRegistry empty;
  Result<DeviceMemoryBuffer> r =
      DeviceMemoryBuffer::create(48, DeviceType::CUDA, 1, kDefaultAlignment, empty);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.code(), ErrorCode::NotFound);
  EXPECT_EQ(r.error().message(), "no device allocator registered for cuda:1");
}

TEST_F(DeviceMemoryBufferTest, AllocatorFailureIsReturnedWithTheDevice) {
  cuda_.fail_next = true;
  Result<DeviceMemoryBuffer> r =
      DeviceMemoryBuffer::create(48, DeviceType::CUDA, 0, kDefaultAlignment, registry_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.code(), ErrorCode::MemoryAllocationFailed);
  EXPECT_EQ(r.error().message(), "allocating 48 bytes on cuda:0: injected");
  EXPECT_EQ(cuda_.deallocate_calls, 0);
}

TEST_F(DeviceMemoryBufferTest, PassesTheRequestedAlignmentToTheAllocator) {
  Result<DeviceMemoryBuffer> r =
      DeviceMemoryBuffer::create(48, DeviceType::CUDA, 1, 256, registry_);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(cuda_.last_alignment, 256u);
  EXPECT_EQ(cuda_.last_index, 1);
  EXPECT_TRUE(is_aligned(r->data(), 256));
  EXPECT_EQ(r->device(), Device::cuda(1));
}

// An allocator that reports success without memory.
class NullAllocator : public CountingAllocator {
 public:
  Result<void*> allocate(size_t, DeviceIndex index, size_t alignment) override {
    ++allocate_calls;
    last_index = index;
    last_alignment = alignment;
    return static_cast<void*>(nullptr);
  }
};

TEST(DeviceMemoryBufferNullTest, AllocatorReturningNullIsMemoryAllocationFailed) {
  DeviceAllocatorRegistry registry;
  NullAllocator cuda;
  ASSERT_TRUE(registry.register_allocator(&cuda).ok());
  Result<DeviceMemoryBuffer> r =
      DeviceMemoryBuffer::create(48, DeviceType::CUDA, 2, kDefaultAlignment, registry);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.code(), ErrorCode::MemoryAllocationFailed);
  EXPECT_EQ(r.error().message(), "allocator returned null for 48 bytes on cuda:2");
  EXPECT_EQ(cuda.allocate_calls, 1);
  EXPECT_EQ(cuda.last_index, 2);
  EXPECT_EQ(cuda.deallocate_calls, 0);
}

TEST_F(DeviceMemoryBufferTest, ZeroBytesMakesNoAllocatorCall) {
  {
    DeviceMemoryBuffer buf = make(0, 1);
    EXPECT_EQ(buf.data(), nullptr);
    EXPECT_EQ(buf.size(), 0u);
    EXPECT_TRUE(buf.as_span().empty());
    EXPECT_EQ(buf.device(), Device::cuda(1));
  }
  EXPECT_EQ(cuda_.allocate_calls, 0);
  EXPECT_EQ(cuda_.deallocate_calls, 0);
}

TEST_F(DeviceMemoryBufferTest, FreesThroughTheAllocatorThatMadeIt) {
  DeviceMemoryBuffer buf = make(16);
  CountingAllocator replacement;
  {
    ScopedDeviceAllocator swap(&replacement, registry_);
    buf = DeviceMemoryBuffer();
  }
  EXPECT_EQ(cuda_.deallocate_calls, 1);
  EXPECT_EQ(replacement.deallocate_calls, 0);
}

}  // namespace
}  // namespace devplan
