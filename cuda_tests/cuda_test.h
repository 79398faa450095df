// CudaTest: the base fixture of every test that needs a real GPU. SetUp() skips the test, with
// the reason, unless cudaGetDeviceCount succeeds with at least one device, so these tests build
// and run everywhere and skip where there is no usable GPU.
//
//   class PlacementTest : public CudaTest {};
//   TEST_F(PlacementTest, LandsOnEachDevice) {
//     for (int d = 0; d < device_count(); ++d) { ... }
//   }
//
// SetUp() also creates the CUDA context of every device once, so free-memory readings taken in
// a test are not disturbed by context creation. Tests must leave every device's current device
// as they found it (checked in TearDown()).
#pragma once

#include <gtest/gtest.h>
#include <runtime_ext/cuda/cuda_device_count.h>

#include <cstddef>
#include <string>

namespace devplan::cuda_testing {

// Why no test can run here ("no usable CUDA device: cudaGetDeviceCount failed: ... (CUDA error
// 35)"), or "" when at least one device is usable.
std::string no_device_reason(const CudaDeviceCount& devices);

// True when scripts/cuda-check.sh runs the binary under compute-sanitizer (environment variable
// DEVPLAN_UNDER_COMPUTE_SANITIZER=1). The tool allocates device memory of its own, so the tests
// then skip their cudaMemGetInfo comparisons and leave leaks to the tool's leak check.
bool under_compute_sanitizer();

// The calling thread's current device, or -1 (with a test failure) when cudaGetDevice fails.
int current_device();

// cudaMemGetInfo's free bytes of `device`, asked with that device current and the caller's
// restored; 0 (with a test failure) on error.
size_t free_device_memory(int device);

class CudaTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  int device_count() const { return device_count_; }

 private:
  int device_count_ = 0;
  int initial_device_ = -1;
};

}  // namespace devplan::cuda_testing
