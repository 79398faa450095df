// RealCudaRuntime without needing a GPU: its texts agree with the fake's, and the device count
// query reports rather than aborts.
#include <gtest/gtest.h>
#include <runtime_ext/cuda/cuda_device_count.h>
#include <runtime_ext/cuda/real_cuda_runtime.h>

#include "fake_cuda_runtime.h"

namespace devplan {
namespace {

using testing::FakeCudaRuntime;

TEST(RealCudaRuntimeTest, IsOneProcessWideInstance) {
  EXPECT_EQ(&real_cuda_runtime(), &real_cuda_runtime());
  EXPECT_NE(dynamic_cast<RealCudaRuntime*>(&real_cuda_runtime()), nullptr);
}

// Keeps the fake honest: the unit tests' expected messages use the fake's texts.
TEST(RealCudaRuntimeTest, ErrorStringsEqualTheFakes) {
  FakeCudaRuntime fake;
  for (int status :
       {kCudaSuccess, kCudaErrorInvalidValue, kCudaErrorMemoryAllocation,
        kCudaErrorInitializationError, kCudaErrorInsufficientDriver, kCudaErrorNoDevice,
        kCudaErrorInvalidDevice, kCudaErrorIllegalAddress, kCudaErrorUnknown, 12345}) {
    EXPECT_STREQ(real_cuda_runtime().get_error_string(status), fake.get_error_string(status))
        << "status " << status;
  }
}

TEST(RealCudaRuntimeTest, DeviceCountReportsInsteadOfAborting) {
  const CudaDeviceCount devices = cuda_device_count();
  int raw_count = -1;
  const int raw_status = real_cuda_runtime().get_device_count(&raw_count);
  EXPECT_EQ(devices.status, raw_status);
  if (devices.ok()) {
    EXPECT_EQ(devices.count, raw_count);
    EXPECT_EQ(devices.error, "");
  } else {
    EXPECT_EQ(devices.count, 0);
    EXPECT_EQ(devices.error, "cudaGetDeviceCount failed: " +
                                 std::string(real_cuda_runtime().get_error_string(raw_status)) +
                                 " (CUDA error " + std::to_string(raw_status) + ")");
  }
}

}  // namespace
}  // namespace devplan
