// register_cuda_allocator needs no GPU: it only fills the registry's CUDA slot.
#include <gtest/gtest.h>
#include <runtime_ext/cuda/cuda_registration.h>
#include <runtime_ext/cuda/real_cuda_runtime.h>

#include "fake_cuda_runtime.h"

namespace devplan {
namespace {

TEST(CudaRegistrationTest, ProcessAllocatorUsesTheRealRuntime) {
  EXPECT_EQ(&process_cuda_allocator(), &process_cuda_allocator());
  EXPECT_EQ(&process_cuda_allocator().runtime(), &real_cuda_runtime());
  EXPECT_EQ(process_cuda_allocator().device_type(), DeviceType::CUDA);
}

TEST(CudaRegistrationTest, RegistersOnceThenReportsAlreadyRegistered) {
  DeviceAllocatorRegistry registry;
  ASSERT_TRUE(register_cuda_allocator(registry).ok());
  EXPECT_EQ(registry.get(DeviceType::CUDA), &process_cuda_allocator());
  EXPECT_EQ(registry.get(DeviceType::CPU), nullptr);
  Error again = register_cuda_allocator(registry);
  EXPECT_EQ(again.code(), ErrorCode::AlreadyRegistered);
  EXPECT_EQ(again.message(),
            "register_cuda_allocator: a device allocator is already registered for cuda");
  EXPECT_EQ(registry.get(DeviceType::CUDA), &process_cuda_allocator());
}

TEST(CudaRegistrationTest, AnotherCudaAllocatorAlreadyThereStays) {
  testing::FakeCudaRuntime fake(2);
  CudaAllocator other(fake);
  DeviceAllocatorRegistry registry;
  ASSERT_TRUE(registry.register_allocator(&other).ok());
  EXPECT_EQ(register_cuda_allocator(registry).code(), ErrorCode::AlreadyRegistered);
  EXPECT_EQ(registry.get(DeviceType::CUDA), &other);
}

TEST(CudaRegistrationTest, RegistersInTheGlobalRegistry) {
  ScopedDeviceAllocator cleared(DeviceType::CUDA, nullptr);  // restores the slot afterwards
  ASSERT_TRUE(register_cuda_allocator().ok());
  EXPECT_EQ(get_device_allocator(DeviceType::CUDA), &process_cuda_allocator());
  EXPECT_EQ(register_cuda_allocator().code(), ErrorCode::AlreadyRegistered);
}

}  // namespace
}  // namespace devplan
