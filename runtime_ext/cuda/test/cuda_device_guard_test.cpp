#include <gtest/gtest.h>
#include <runtime_ext/cuda/cuda_device_guard.h>

#include "fake_cuda_runtime.h"

namespace devplan {
namespace {

using testing::FakeCudaRuntime;
using Calls = std::vector<std::string>;

TEST(CudaDeviceGuardTest, SelectingTheCurrentDeviceSetsAndRestoresNothing) {
  FakeCudaRuntime fake(4);
  {
    CudaDeviceGuard guard(fake);
    ASSERT_TRUE(guard.select(0).ok());
    EXPECT_FALSE(guard.switched());
  }
  EXPECT_EQ(fake.calls(), (Calls{"get_device_count", "get_device"}));
  EXPECT_EQ(fake.current_device(), 0);
}

TEST(CudaDeviceGuardTest, SelectsAnotherDeviceAndRestoresTheCallersOnDestruction) {
  FakeCudaRuntime fake(4);
  fake.set_current_device(3);
  {
    CudaDeviceGuard guard(fake);
    ASSERT_TRUE(guard.select(1).ok());
    EXPECT_TRUE(guard.switched());
    EXPECT_EQ(fake.current_device(), 1);
  }
  EXPECT_EQ(fake.current_device(), 3);
  EXPECT_EQ(fake.calls(),
            (Calls{"get_device_count", "get_device", "set_device(1)", "set_device(3)"}));
}

TEST(CudaDeviceGuardTest, ExplicitRestoreIsIdempotent) {
  FakeCudaRuntime fake(2);
  CudaDeviceGuard guard(fake);
  ASSERT_TRUE(guard.select(1).ok());
  ASSERT_TRUE(guard.restore().ok());
  EXPECT_FALSE(guard.switched());
  EXPECT_EQ(fake.current_device(), 0);
  fake.clear_calls();
  EXPECT_TRUE(guard.restore().ok());
  EXPECT_TRUE(fake.calls().empty());
}

TEST(CudaDeviceGuardTest, NegativeIndexIsRejectedWithoutAnyCall) {
  FakeCudaRuntime fake(4);
  CudaDeviceGuard guard(fake);
  Error error = guard.select(-1);
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(error.message(), "invalid device cuda:-1: a CUDA device index is never negative");
  EXPECT_TRUE(fake.calls().empty());
  EXPECT_FALSE(guard.switched());
}

TEST(CudaDeviceGuardTest, IndexPastTheCountIsRejectedBeforeTouchingTheCurrentDevice) {
  FakeCudaRuntime fake(4);
  fake.set_current_device(2);
  {
    CudaDeviceGuard guard(fake);
    Error error = guard.select(4);
    EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
    EXPECT_EQ(error.message(),
              "invalid device cuda:4: 4 CUDA devices are visible (cuda:0 to cuda:3)");
  }
  EXPECT_EQ(fake.calls(), (Calls{"get_device_count"}));
  EXPECT_EQ(fake.current_device(), 2);
}

TEST(CudaDeviceGuardTest, MessagesForOneAndZeroVisibleDevices) {
  FakeCudaRuntime one(1);
  EXPECT_EQ(validate_cuda_device(one, 1).message(),
            "invalid device cuda:1: 1 CUDA device is visible (cuda:0)");
  EXPECT_EQ(validate_cuda_device(one, kMaxDeviceIndex).message(),
            "invalid device cuda:127: 1 CUDA device is visible (cuda:0)");
  FakeCudaRuntime none(0);
  Error error = validate_cuda_device(none, 0);
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(error.message(), "invalid device cuda:0: no CUDA device is visible");
}

TEST(CudaDeviceGuardTest, FailingDeviceCountIsMapped) {
  FakeCudaRuntime fake(4);
  fake.get_device_count_status = kCudaErrorNoDevice;
  CudaDeviceGuard guard(fake);
  Error error = guard.select(0);
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(
      error.message(),
      "cudaGetDeviceCount for cuda:0 failed: no CUDA-capable device is detected (CUDA error 100)");

  FakeCudaRuntime no_driver(4);
  no_driver.get_device_count_status = kCudaErrorInsufficientDriver;
  EXPECT_EQ(validate_cuda_device(no_driver, 0).code(), ErrorCode::Internal);
}

TEST(CudaDeviceGuardTest, FailingGetDeviceSetsNothing) {
  FakeCudaRuntime fake(4);
  fake.get_device_status = kCudaErrorInitializationError;
  {
    CudaDeviceGuard guard(fake);
    Error error = guard.select(1);
    EXPECT_EQ(error.code(), ErrorCode::Internal);
    EXPECT_EQ(error.message(),
              "cudaGetDevice while selecting cuda:1 failed: initialization error (CUDA error 3)");
  }
  EXPECT_EQ(fake.calls(), (Calls{"get_device_count", "get_device", "get_error_string(3)"}));
  EXPECT_EQ(fake.current_device(), 0);
}

TEST(CudaDeviceGuardTest, FailingSetDeviceLeavesTheCurrentDeviceAndRestoresNothing) {
  FakeCudaRuntime fake(4);
  fake.set_device_status[2] = kCudaErrorInvalidDevice;
  {
    CudaDeviceGuard guard(fake);
    Error error = guard.select(2);
    EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
    EXPECT_EQ(error.message(),
              "cudaSetDevice for cuda:2 failed: invalid device ordinal (CUDA error 101)");
    EXPECT_FALSE(guard.switched());
  }
  EXPECT_EQ(fake.calls(),
            (Calls{"get_device_count", "get_device", "set_device(2)", "get_error_string(101)"}));
  EXPECT_EQ(fake.current_device(), 0);
}

TEST(CudaDeviceGuardTest, FailingRestoreIsReportedOnce) {
  FakeCudaRuntime fake(4);
  fake.set_current_device(1);
  CudaDeviceGuard guard(fake);
  ASSERT_TRUE(guard.select(2).ok());
  fake.set_device_status[1] = kCudaErrorUnknown;
  Error error = guard.restore();
  EXPECT_EQ(error.code(), ErrorCode::Internal);
  EXPECT_EQ(error.message(),
            "cudaSetDevice restoring cuda:1 after cuda:2 failed: unknown error (CUDA error 999)");
  EXPECT_FALSE(guard.switched());
  fake.clear_calls();
  EXPECT_TRUE(guard.restore().ok());
  EXPECT_TRUE(fake.calls().empty());
}

TEST(CudaDeviceGuardTest, SelectingTwiceIsInternal) {
  FakeCudaRuntime fake(4);
  CudaDeviceGuard guard(fake);
  ASSERT_TRUE(guard.select(1).ok());
  Error error = guard.select(2);
  EXPECT_EQ(error.code(), ErrorCode::Internal);
  EXPECT_EQ(error.message(),
            "CudaDeviceGuard::select(cuda:2) called twice; a guard selects one device");
  EXPECT_EQ(fake.current_device(), 1);
}

}  // namespace
}  // namespace devplan
