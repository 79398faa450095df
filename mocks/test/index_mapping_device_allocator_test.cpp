#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <mocks/index_mapping_device_allocator.h>
#include <runtime_ext/cuda/cuda_allocator.h>
#include <runtime_ext/cuda/test/fake_cuda_runtime.h>

namespace devplan {
namespace {

using testing::FakeCudaRuntime;

TEST(IndexMappingDeviceAllocator, SendsAMappedIndexsCallsToItsTarget) {
  FakeCudaRuntime fake(1);
  CudaAllocator cuda(fake);
  IndexMappingDeviceAllocator mapped(&cuda);
  ASSERT_TRUE(mapped.map(1, 0).ok());
  EXPECT_EQ(mapped.target(1), 0);
  EXPECT_EQ(mapped.target(0), 0);
  EXPECT_EQ(mapped.target(2), 2);
  Result<void*> p = mapped.allocate(16, 1);
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  EXPECT_EQ(fake.device_of(*p), 0);
  const int value = 42;
  ASSERT_TRUE(mapped.copy_host_to_device(*p, &value, sizeof value, 1).ok());
  int back = 0;
  ASSERT_TRUE(mapped.copy_device_to_host(&back, *p, sizeof back, 1).ok());
  EXPECT_EQ(back, 42);
  mapped.deallocate(*p, 1);
  EXPECT_EQ(fake.live_allocations(), 0u);
  EXPECT_EQ(cuda.deallocation_errors(), 0u);
}

TEST(IndexMappingDeviceAllocator, AnUnmappedAbsentIndexFailsAsTheUpstreamSays) {
  FakeCudaRuntime fake(1);
  CudaAllocator cuda(fake);
  IndexMappingDeviceAllocator mapped(&cuda);
  Result<void*> p = mapped.allocate(16, 1);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(mapped.device_type(), DeviceType::CUDA);
}

TEST(IndexMappingDeviceAllocator, RefusesNegativeIndicesAndASecondTarget) {
  FakeCudaRuntime fake(2);
  CudaAllocator cuda(fake);
  IndexMappingDeviceAllocator mapped(&cuda);
  EXPECT_EQ(mapped.map(-1, 0).message(),
            "IndexMappingDeviceAllocator::map: device indices must not be negative (-1 to 0)");
  ASSERT_TRUE(mapped.map(3, 0).ok());
  EXPECT_TRUE(mapped.map(3, 0).ok());  // the same mapping again changes nothing
  EXPECT_EQ(mapped.map(3, 1).message(),
            "IndexMappingDeviceAllocator::map: cuda:3 is already mapped to cuda:0");
  EXPECT_EQ(mapped.target(3), 0);
}

}  // namespace
}  // namespace devplan
