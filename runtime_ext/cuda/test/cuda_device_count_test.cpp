#include <gtest/gtest.h>
#include <runtime_ext/cuda/cuda_device_count.h>

#include "fake_cuda_runtime.h"

namespace devplan {
namespace {

using testing::FakeCudaRuntime;

TEST(CudaDeviceCountTest, ReportsTheCountOnSuccess) {
  FakeCudaRuntime fake(4);
  CudaDeviceCount devices = cuda_device_count(fake);
  EXPECT_TRUE(devices.ok());
  EXPECT_EQ(devices.count, 4);
  EXPECT_EQ(devices.status, kCudaSuccess);
  EXPECT_EQ(devices.error, "");
  EXPECT_EQ(devices.describe(), "4 CUDA devices");
  EXPECT_EQ(fake.calls(), (std::vector<std::string>{"get_device_count"}));
}

TEST(CudaDeviceCountTest, DescribesOneAndZeroDevices) {
  FakeCudaRuntime one(1);
  EXPECT_EQ(cuda_device_count(one).describe(), "1 CUDA device");
  FakeCudaRuntime none(0);
  CudaDeviceCount devices = cuda_device_count(none);
  EXPECT_TRUE(devices.ok());
  EXPECT_EQ(devices.count, 0);
  EXPECT_EQ(devices.describe(), "0 CUDA devices");
}

TEST(CudaDeviceCountTest, NegativeCountReadsAsZero) {
  FakeCudaRuntime fake(-3);
  EXPECT_EQ(cuda_device_count(fake).count, 0);
}

TEST(CudaDeviceCountTest, FailureReportsStatusAndTextWithoutAborting) {
  FakeCudaRuntime fake(2);
  fake.get_device_count_status = kCudaErrorInsufficientDriver;
  CudaDeviceCount devices = cuda_device_count(fake);
  EXPECT_FALSE(devices.ok());
  EXPECT_EQ(devices.count, 0);
  EXPECT_EQ(devices.status, kCudaErrorInsufficientDriver);
  EXPECT_EQ(devices.error,
            "cudaGetDeviceCount failed: CUDA driver version is insufficient for CUDA runtime "
            "version (CUDA error 35)");
  EXPECT_EQ(devices.describe(), devices.error);
}

}  // namespace
}  // namespace devplan
