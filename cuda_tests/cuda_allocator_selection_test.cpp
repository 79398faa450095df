// CudaAllocator on real GPUs: a device that cannot be selected is an error that allocates
// nothing anywhere, and no call changes the caller's current device.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <runtime_ext/cuda/cuda_allocator.h>
#include <runtime_ext/cuda/real_cuda_runtime.h>

#include <vector>

#include "cuda_test.h"

namespace devplan::cuda_testing {
namespace {

class CudaAllocatorSelectionTest : public CudaTest {
 protected:
  std::vector<size_t> free_memory_of_all_devices() {
    std::vector<size_t> free_bytes;
    for (int d = 0; d < device_count(); ++d) free_bytes.push_back(free_device_memory(d));
    return free_bytes;
  }
  std::string visible() const {
    if (device_count() == 1) return "1 CUDA device is visible (cuda:0)";
    return std::to_string(device_count()) +
           " CUDA devices are visible (cuda:0 to cuda:" + std::to_string(device_count() - 1) + ")";
  }
  CudaAllocator allocator_{real_cuda_runtime()};
};

TEST_F(CudaAllocatorSelectionTest, IndexPastTheDeviceCountAllocatesNothing) {
  const std::vector<size_t> before = free_memory_of_all_devices();
  for (int index : {device_count(), device_count() + 1, int{kMaxDeviceIndex}}) {
    if (index > kMaxDeviceIndex) continue;
    Result<void*> p = allocator_.allocate(size_t{64} << 20, static_cast<DeviceIndex>(index));
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.code(), ErrorCode::InvalidArgument);
    EXPECT_EQ(p.error().message(), "CudaAllocator::allocate: invalid device cuda:" +
                                       std::to_string(index) + ": " + visible());
    EXPECT_EQ(current_device(), 0);
  }
  if (!under_compute_sanitizer()) {
    EXPECT_EQ(free_memory_of_all_devices(), before);
  }
}

TEST_F(CudaAllocatorSelectionTest, NegativeIndexAllocatesNothing) {
  const std::vector<size_t> before = free_memory_of_all_devices();
  Result<void*> p = allocator_.allocate(size_t{64} << 20, -1);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(
      p.error().message(),
      "CudaAllocator::allocate: invalid device cuda:-1: a CUDA device index is never negative");
  if (!under_compute_sanitizer()) {
    EXPECT_EQ(free_memory_of_all_devices(), before);
  }
  EXPECT_EQ(current_device(), 0);
}

TEST_F(CudaAllocatorSelectionTest, CopiesToABadDeviceFailAndChangeNothing) {
  std::vector<uint8_t> host(64, 7);
  std::vector<uint8_t> other(64, 0);
  Error error = allocator_.copy_host_to_device(other.data(), host.data(), 64,
                                               static_cast<DeviceIndex>(device_count()));
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(error.message(), "CudaAllocator::copy_host_to_device: invalid device cuda:" +
                                 std::to_string(device_count()) + ": " + visible());
  EXPECT_EQ(other, std::vector<uint8_t>(64, 0));
  EXPECT_EQ(current_device(), 0);
}

TEST_F(CudaAllocatorSelectionTest, EveryCallLeavesTheCurrentDeviceAsItWas) {
  const int home = device_count() - 1;
  ASSERT_EQ(cudaSetDevice(home), cudaSuccess);
  std::vector<uint8_t> host(512, 1), back(512, 0);
  for (int d = 0; d < device_count(); ++d) {
    const DeviceIndex index = static_cast<DeviceIndex>(d);
    Result<void*> p = allocator_.allocate(512, index);
    ASSERT_TRUE(p.ok()) << p.error();
    EXPECT_EQ(current_device(), home) << "after allocate on cuda:" << d;
    EXPECT_TRUE(allocator_.copy_host_to_device(*p, host.data(), 512, index).ok());
    EXPECT_EQ(current_device(), home) << "after copy_host_to_device on cuda:" << d;
    EXPECT_TRUE(allocator_.copy_device_to_host(back.data(), *p, 512, index).ok());
    EXPECT_EQ(current_device(), home) << "after copy_device_to_host on cuda:" << d;
    EXPECT_FALSE(allocator_.allocate(512, index, 24).ok());
    EXPECT_EQ(current_device(), home) << "after a failed allocate on cuda:" << d;
    allocator_.deallocate(*p, index);
    EXPECT_EQ(current_device(), home) << "after deallocate on cuda:" << d;
  }
  EXPECT_FALSE(allocator_.allocate(512, static_cast<DeviceIndex>(device_count())).ok());
  EXPECT_EQ(current_device(), home);
  EXPECT_EQ(back, host);
  EXPECT_EQ(allocator_.deallocation_errors(), 0u) << allocator_.last_deallocation_error();
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
}

}  // namespace
}  // namespace devplan::cuda_testing
