// Turning a CUDA runtime status into a devplan::Error.
//
//   int status = runtime.malloc(&ptr, nbytes);
//   if (status != kCudaSuccess) {
//     return cuda_status_error(runtime, status, "cudaMalloc of 1024 bytes on cuda:1");
//   }
//   // MemoryAllocationFailed: "cudaMalloc of 1024 bytes on cuda:1 failed: out of memory
//   //                          (CUDA error 2)"
#pragma once

#include <runtime_ext/core/error.h>
#include <runtime_ext/cuda/cuda_runtime_interface.h>

#include <string>

namespace devplan {

// The devplan code for a failed CUDA status: MemoryAllocationFailed for
// cudaErrorMemoryAllocation; InvalidArgument for cudaErrorInvalidValue, cudaErrorInvalidDevice
// and cudaErrorNoDevice (the caller named memory or a device that is not there); Internal for
// every other status. Ok only for kCudaSuccess.
ErrorCode cuda_status_code(int status);

// runtime.get_error_string(status), or "unrecognized CUDA error" should it return nullptr.
std::string cuda_error_string(CudaRuntime& runtime, int status);

// An Error with cuda_status_code(status) and the message
// "<what> failed: <cuda_error_string> (CUDA error <status>)". `what` names the call and the
// device. Ok for kCudaSuccess.
Error cuda_status_error(CudaRuntime& runtime, int status, const std::string& what);

}  // namespace devplan
