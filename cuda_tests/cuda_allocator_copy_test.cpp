// CudaAllocator on real GPUs: random bytes survive host -> device -> host on every device.
#include <gtest/gtest.h>
#include <runtime_ext/cuda/cuda_allocator.h>
#include <runtime_ext/cuda/real_cuda_runtime.h>

#include <cstdint>
#include <random>
#include <vector>

#include "cuda_test.h"

namespace devplan::cuda_testing {
namespace {

class CudaAllocatorCopyTest : public CudaTest {
 protected:
  CudaAllocator allocator_{real_cuda_runtime()};
};

TEST_F(CudaAllocatorCopyTest, RandomBytesRoundTripForEverySize) {
  std::mt19937 rng(20240601);
  for (int d = 0; d < device_count(); ++d) {
    const DeviceIndex index = static_cast<DeviceIndex>(d);
    for (size_t size : {size_t{0}, size_t{1}, size_t{255}, size_t{256}, size_t{1} << 20}) {
      SCOPED_TRACE("cuda:" + std::to_string(d) + ", " + std::to_string(size) + " bytes");
      std::vector<uint8_t> host(size), back(size, 0xA5);
      for (auto& byte : host) byte = static_cast<uint8_t>(rng());
      Result<void*> p = allocator_.allocate(size, index);
      ASSERT_TRUE(p.ok()) << p.error();
      EXPECT_EQ(*p == nullptr, size == 0);
      Error to_device = allocator_.copy_host_to_device(*p, host.data(), size, index);
      ASSERT_TRUE(to_device.ok()) << to_device;
      Error to_host = allocator_.copy_device_to_host(back.data(), *p, size, index);
      ASSERT_TRUE(to_host.ok()) << to_host;
      EXPECT_EQ(back, host);
      allocator_.deallocate(*p, index);
    }
  }
  EXPECT_EQ(allocator_.deallocation_errors(), 0u) << allocator_.last_deallocation_error();
}

TEST_F(CudaAllocatorCopyTest, PartialCopiesTouchOnlyTheirBytes) {
  Result<void*> p = allocator_.allocate(1024, 0);
  ASSERT_TRUE(p.ok()) << p.error();
  std::vector<uint8_t> zeros(1024, 0), ones(100, 1), back(1024, 0xFF);
  ASSERT_TRUE(allocator_.copy_host_to_device(*p, zeros.data(), 1024, 0).ok());
  ASSERT_TRUE(
      allocator_.copy_host_to_device(static_cast<uint8_t*>(*p) + 300, ones.data(), 100, 0).ok());
  ASSERT_TRUE(allocator_.copy_device_to_host(back.data(), *p, 1024, 0).ok());
  for (size_t i = 0; i < back.size(); ++i) {
    ASSERT_EQ(back[i], (i >= 300 && i < 400) ? 1 : 0) << "byte " << i;
  }
  allocator_.deallocate(*p, 0);
}

}  // namespace
}  // namespace devplan::cuda_testing
