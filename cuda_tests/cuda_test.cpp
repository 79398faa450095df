#include "cuda_test.h"

#include <cuda_runtime_api.h>

#include <cstdlib>
#include <cstring>

namespace devplan::cuda_testing {
namespace {

// Destroys every device's context after the last test, so that compute-sanitizer's leak check
// (which reports at context destruction) sees any allocation a test left behind.
class ResetDevicesAtExit : public ::testing::Environment {
 public:
  void TearDown() override {
    const CudaDeviceCount devices = cuda_device_count();
    if (!no_device_reason(devices).empty()) return;
    for (int d = 0; d < devices.count; ++d) {
      if (cudaSetDevice(d) == cudaSuccess) cudaDeviceReset();
    }
  }
};

::testing::Environment* const reset_devices_at_exit =
    ::testing::AddGlobalTestEnvironment(new ResetDevicesAtExit);

}  // namespace

std::string no_device_reason(const CudaDeviceCount& devices) {
  if (!devices.ok()) return "no usable CUDA device: " + devices.error;
  if (devices.count < 1) return "no usable CUDA device: cudaGetDeviceCount reported 0 devices";
  return "";
}

bool under_compute_sanitizer() {
  const char* value = std::getenv("DEVPLAN_UNDER_COMPUTE_SANITIZER");
  return value != nullptr && std::strcmp(value, "1") == 0;
}

int current_device() {
  int device = -1;
  const cudaError_t status = cudaGetDevice(&device);
  if (status != cudaSuccess) {
    ADD_FAILURE() << "cudaGetDevice failed: " << cudaGetErrorString(status);
    return -1;
  }
  return device;
}

size_t free_device_memory(int device) {
  const int previous = current_device();
  size_t free_bytes = 0, total_bytes = 0;
  cudaError_t status = cudaSetDevice(device);
  if (status == cudaSuccess) status = cudaMemGetInfo(&free_bytes, &total_bytes);
  if (status != cudaSuccess) {
    ADD_FAILURE() << "cudaMemGetInfo on cuda:" << device
                  << " failed: " << cudaGetErrorString(status);
    free_bytes = 0;
  }
  if (previous >= 0) cudaSetDevice(previous);
  return free_bytes;
}

void CudaTest::SetUp() {
  const CudaDeviceCount devices = cuda_device_count();
  const std::string reason = no_device_reason(devices);
  if (!reason.empty()) GTEST_SKIP() << reason;
  device_count_ = devices.count;
  initial_device_ = current_device();
  for (int d = 0; d < device_count_; ++d) {
    const cudaError_t status = cudaSetDevice(d);
    if (status == cudaSuccess) cudaFree(nullptr);  // creates the device's context
    ASSERT_EQ(status, cudaSuccess) << "cudaSetDevice(" << d << "): " << cudaGetErrorString(status);
  }
  ASSERT_EQ(cudaSetDevice(initial_device_), cudaSuccess);
}

void CudaTest::TearDown() {
  if (initial_device_ < 0) return;  // skipped
  EXPECT_EQ(current_device(), initial_device_) << "the test changed the current device";
  cudaSetDevice(initial_device_);
}

}  // namespace devplan::cuda_testing
