// register_cuda_allocator on real GPUs: DeviceMemoryBuffer::create then places buffers on the
// requested device through the registered CudaAllocator.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <runtime_ext/core/device_memory_buffer.h>
#include <runtime_ext/cuda/cuda_registration.h>

#include "cuda_test.h"

namespace devplan::cuda_testing {
namespace {

class CudaRegistrationGpuTest : public CudaTest {};

TEST_F(CudaRegistrationGpuTest, RegisteredAllocatorPlacesBuffersOnTheirDevices) {
  DeviceAllocatorRegistry registry;
  ASSERT_TRUE(register_cuda_allocator(registry).ok());
  for (int d = 0; d < device_count(); ++d) {
    Result<DeviceMemoryBuffer> buffer = DeviceMemoryBuffer::create(
        48, DeviceType::CUDA, static_cast<DeviceIndex>(d), kDefaultAlignment, registry);
    ASSERT_TRUE(buffer.ok()) << buffer.error();
    cudaPointerAttributes attributes{};
    ASSERT_EQ(cudaPointerGetAttributes(&attributes, buffer->data()), cudaSuccess);
    EXPECT_EQ(attributes.type, cudaMemoryTypeDevice);
    EXPECT_EQ(attributes.device, d);
  }
  Result<DeviceMemoryBuffer> absent = DeviceMemoryBuffer::create(
      48, DeviceType::CUDA, static_cast<DeviceIndex>(device_count()), kDefaultAlignment, registry);
  ASSERT_FALSE(absent.ok());
  EXPECT_EQ(absent.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(process_cuda_allocator().deallocation_errors(), 0u)
      << process_cuda_allocator().last_deallocation_error();
}

}  // namespace
}  // namespace devplan::cuda_testing
