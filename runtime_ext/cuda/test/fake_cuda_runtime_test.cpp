// The fake must behave as CUDA does where the allocator's tests rely on it.
#include "fake_cuda_runtime.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <thread>

namespace devplan::testing {
namespace {

TEST(FakeCudaRuntimeTest, ReportsItsDevicesAndStartsOnDeviceZero) {
  FakeCudaRuntime fake(3);
  int count = -1;
  ASSERT_EQ(fake.get_device_count(&count), kCudaSuccess);
  EXPECT_EQ(count, 3);
  int device = -1;
  ASSERT_EQ(fake.get_device(&device), kCudaSuccess);
  EXPECT_EQ(device, 0);
  EXPECT_EQ(fake.calls(), (std::vector<std::string>{"get_device_count", "get_device"}));
}

TEST(FakeCudaRuntimeTest, SetDeviceToAnAbsentOrdinalFailsAndChangesNothing) {
  FakeCudaRuntime fake(2);
  ASSERT_EQ(fake.set_device(1), kCudaSuccess);
  EXPECT_EQ(fake.set_device(2), kCudaErrorInvalidDevice);
  EXPECT_EQ(fake.set_device(-1), kCudaErrorInvalidDevice);
  EXPECT_EQ(fake.current_device(), 1);
}

TEST(FakeCudaRuntimeTest, InjectedSetDeviceFailureAppliesToThatDeviceOnly) {
  FakeCudaRuntime fake(4);
  fake.set_device_status[2] = kCudaErrorUnknown;
  EXPECT_EQ(fake.set_device(2), kCudaErrorUnknown);
  EXPECT_EQ(fake.current_device(), 0);
  EXPECT_EQ(fake.set_device(3), kCudaSuccess);
  EXPECT_EQ(fake.current_device(), 3);
}

TEST(FakeCudaRuntimeTest, CurrentDeviceIsPerThread) {
  FakeCudaRuntime fake(4);
  ASSERT_EQ(fake.set_device(3), kCudaSuccess);
  int seen_by_other_thread = -1;
  std::thread other([&] { seen_by_other_thread = fake.current_device(); });
  other.join();
  EXPECT_EQ(seen_by_other_thread, 0);
  EXPECT_EQ(fake.current_device(), 3);
}

TEST(FakeCudaRuntimeTest, MallocPlacesOnTheCurrentDeviceUpToItsCapacity) {
  FakeCudaRuntime fake(2, 1000);
  ASSERT_EQ(fake.set_device(1), kCudaSuccess);
  void* p = nullptr;
  ASSERT_EQ(fake.malloc(&p, 600), kCudaSuccess);
  EXPECT_EQ(fake.device_of(p), 1);
  EXPECT_EQ(fake.device_of(static_cast<char*>(p) + 599), 1);
  EXPECT_EQ(fake.device_of(static_cast<char*>(p) + 600), -1);
  EXPECT_EQ(fake.size_of(p), 600u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % FakeCudaRuntime::kBlockAlignment, 0u);
  EXPECT_EQ(fake.live_bytes(1), 600u);
  EXPECT_EQ(fake.live_bytes(0), 0u);

  void* q = nullptr;
  EXPECT_EQ(fake.malloc(&q, 401), kCudaErrorMemoryAllocation);
  EXPECT_EQ(q, nullptr);
  ASSERT_EQ(fake.malloc(&q, 400), kCudaSuccess);
  size_t free_bytes = 0, total_bytes = 0;
  ASSERT_EQ(fake.mem_get_info(&free_bytes, &total_bytes), kCudaSuccess);
  EXPECT_EQ(free_bytes, 0u);
  EXPECT_EQ(total_bytes, 1000u);

  EXPECT_EQ(fake.free(p), kCudaSuccess);
  EXPECT_EQ(fake.free(p), kCudaErrorInvalidValue);  // double free
  EXPECT_EQ(fake.free(nullptr), kCudaSuccess);
  EXPECT_EQ(fake.free(q), kCudaSuccess);
  EXPECT_EQ(fake.live_allocations(), 0u);
}

TEST(FakeCudaRuntimeTest, MallocOffsetShiftsTheHandedOutPointer) {
  FakeCudaRuntime fake(1);
  fake.malloc_offset = 256;
  void* p = nullptr;
  ASSERT_EQ(fake.malloc(&p, 64), kCudaSuccess);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % FakeCudaRuntime::kBlockAlignment, 256u);
  EXPECT_EQ(fake.block_of(static_cast<char*>(p) + 10), p);
  EXPECT_EQ(fake.free(p), kCudaSuccess);
}

TEST(FakeCudaRuntimeTest, MemcpyNeedsTheDeviceSideInsideOneLiveAllocation) {
  FakeCudaRuntime fake(1);
  void* d = nullptr;
  ASSERT_EQ(fake.malloc(&d, 16), kCudaSuccess);
  const char src[17] = "0123456789abcdef";
  char dst[16] = {};
  EXPECT_EQ(fake.memcpy(d, src, 16, CudaMemcpyDirection::HostToDevice), kCudaSuccess);
  EXPECT_EQ(fake.memcpy(dst, d, 16, CudaMemcpyDirection::DeviceToHost), kCudaSuccess);
  EXPECT_EQ(std::memcmp(dst, src, 16), 0);
  EXPECT_EQ(fake.memcpy(d, src, 17, CudaMemcpyDirection::HostToDevice), kCudaErrorInvalidValue);
  EXPECT_EQ(fake.memcpy(dst, src, 16, CudaMemcpyDirection::HostToDevice), kCudaErrorInvalidValue);
  EXPECT_EQ(fake.memcpy(dst, src, 16, CudaMemcpyDirection::DeviceToHost), kCudaErrorInvalidValue);
  EXPECT_EQ(fake.free(d), kCudaSuccess);
}

TEST(FakeCudaRuntimeTest, PointerAttributesNameTheOwningDevice) {
  FakeCudaRuntime fake(2);
  ASSERT_EQ(fake.set_device(1), kCudaSuccess);
  void* d = nullptr;
  ASSERT_EQ(fake.malloc(&d, 32), kCudaSuccess);
  CudaPointerAttributes attributes;
  ASSERT_EQ(fake.pointer_get_attributes(&attributes, static_cast<char*>(d) + 31), kCudaSuccess);
  EXPECT_EQ(attributes.type, CudaMemoryType::Device);
  EXPECT_EQ(attributes.device, 1);
  int host = 0;
  ASSERT_EQ(fake.pointer_get_attributes(&attributes, &host), kCudaSuccess);
  EXPECT_EQ(attributes.type, CudaMemoryType::Unregistered);
  EXPECT_EQ(fake.free(d), kCudaSuccess);
}

TEST(FakeCudaRuntimeTest, ErrorStringsAreCudas) {
  FakeCudaRuntime fake;
  EXPECT_STREQ(fake.get_error_string(kCudaErrorMemoryAllocation), "out of memory");
  EXPECT_STREQ(fake.get_error_string(kCudaErrorInvalidDevice), "invalid device ordinal");
  EXPECT_STREQ(fake.get_error_string(12345), "unrecognized error code");
}

}  // namespace
}  // namespace devplan::testing
