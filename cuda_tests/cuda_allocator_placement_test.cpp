// CudaAllocator on real GPUs: each allocation lands on the device asked for, whatever device is
// current, and the caller's current device is left as it was.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <runtime_ext/cuda/cuda_allocator.h>
#include <runtime_ext/cuda/real_cuda_runtime.h>

#include "cuda_test.h"

namespace devplan::cuda_testing {
namespace {

class CudaAllocatorPlacementTest : public CudaTest {
 protected:
  CudaAllocator allocator_{real_cuda_runtime()};
};

TEST_F(CudaAllocatorPlacementTest, EachAllocationIsDeviceMemoryOfTheRequestedDevice) {
  // Start from the last device, so that with several devices every other one needs a switch.
  const int home = device_count() - 1;
  ASSERT_EQ(cudaSetDevice(home), cudaSuccess);
  for (int d = 0; d < device_count(); ++d) {
    for (size_t alignment : {size_t{16}, size_t{256}, size_t{4096}}) {
      SCOPED_TRACE("cuda:" + std::to_string(d) + " alignment " + std::to_string(alignment));
      Result<void*> p = allocator_.allocate(4096 + 3, static_cast<DeviceIndex>(d), alignment);
      ASSERT_TRUE(p.ok()) << p.error();
      ASSERT_NE(*p, nullptr);
      EXPECT_TRUE(is_aligned(*p, alignment));
      cudaPointerAttributes attributes{};
      ASSERT_EQ(cudaPointerGetAttributes(&attributes, *p), cudaSuccess);
      EXPECT_EQ(attributes.type, cudaMemoryTypeDevice);
      EXPECT_EQ(attributes.device, d);
      // The last byte of the request is inside the same device allocation.
      ASSERT_EQ(cudaPointerGetAttributes(&attributes, static_cast<char*>(*p) + 4096 + 2),
                cudaSuccess);
      EXPECT_EQ(attributes.type, cudaMemoryTypeDevice);
      EXPECT_EQ(attributes.device, d);
      EXPECT_EQ(current_device(), home);
      allocator_.deallocate(*p, static_cast<DeviceIndex>(d));
      EXPECT_EQ(current_device(), home);
    }
  }
  EXPECT_EQ(allocator_.deallocation_errors(), 0u) << allocator_.last_deallocation_error();
  EXPECT_EQ(allocator_.outstanding_over_aligned(), 0u);
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
}

TEST_F(CudaAllocatorPlacementTest, TheRealRuntimeReportsTheSamePlacementAsCuda) {
  CudaRuntime& runtime = real_cuda_runtime();
  for (int d = 0; d < device_count(); ++d) {
    Result<void*> p = allocator_.allocate(256, static_cast<DeviceIndex>(d));
    ASSERT_TRUE(p.ok()) << p.error();
    CudaPointerAttributes attributes;
    ASSERT_EQ(runtime.pointer_get_attributes(&attributes, *p), kCudaSuccess);
    EXPECT_EQ(attributes.type, CudaMemoryType::Device);
    EXPECT_EQ(attributes.device, d);
    int host = 0;
    ASSERT_EQ(runtime.pointer_get_attributes(&attributes, &host), kCudaSuccess);
    EXPECT_EQ(attributes.type, CudaMemoryType::Unregistered);
    allocator_.deallocate(*p, static_cast<DeviceIndex>(d));
  }
  EXPECT_EQ(allocator_.deallocation_errors(), 0u) << allocator_.last_deallocation_error();
}

}  // namespace
}  // namespace devplan::cuda_testing
