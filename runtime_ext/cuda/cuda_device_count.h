// cuda_device_count: how many CUDA devices this process can use, asked without ever aborting,
// also where there is no driver or no GPU.
//
//   CudaDeviceCount devices = cuda_device_count();
//   if (!devices.ok() || devices.count == 0) {
//     GTEST_SKIP() << "no usable CUDA device: " << devices.describe();
//   }
#pragma once

#include <runtime_ext/cuda/cuda_runtime_interface.h>

#include <string>

namespace devplan {

struct CudaDeviceCount {
  int count = 0;              // devices visible; 0 whenever the query failed
  int status = kCudaSuccess;  // cudaGetDeviceCount's status
  std::string error;  // "" on success, else "cudaGetDeviceCount failed: <text> (CUDA error N)"

  bool ok() const { return status == kCudaSuccess; }

  // "2 CUDA devices", "1 CUDA device", "0 CUDA devices", or `error` when the query failed.
  std::string describe() const;
};

// Asks `runtime`. A negative count reported with success is read as 0.
CudaDeviceCount cuda_device_count(CudaRuntime& runtime);

// Asks the real CUDA runtime (real_cuda_runtime()). Defined in devplan::cuda, which exists only
// in builds with CUDA.
CudaDeviceCount cuda_device_count();

}  // namespace devplan
