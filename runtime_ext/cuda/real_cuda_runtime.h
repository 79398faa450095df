// RealCudaRuntime: the CudaRuntime that calls the CUDA runtime library (cudart). Part of
// devplan::cuda, which exists only in builds with CUDA (DEVPLAN_HAVE_CUDA).
//
//   CudaAllocator allocator(real_cuda_runtime());
//
// Stateless: every method forwards to the CUDA call of the same name and returns its status.
// Without a driver or GPU the calls return CUDA's error (cudaErrorInsufficientDriver,
// cudaErrorNoDevice, ...); nothing aborts. Thread-safe as CUDA is.
#pragma once

#include <runtime_ext/cuda/cuda_runtime_interface.h>

namespace devplan {

class RealCudaRuntime : public CudaRuntime {
 public:
  int get_device_count(int* count) override;
  int get_device(int* device) override;
  int set_device(int device) override;
  int malloc(void** ptr, size_t nbytes) override;
  int free(void* ptr) override;
  int memcpy(void* dst, const void* src, size_t nbytes, CudaMemcpyDirection direction) override;
  const char* get_error_string(int status) override;
  int mem_get_info(size_t* free_bytes, size_t* total_bytes) override;
  int pointer_get_attributes(CudaPointerAttributes* attributes, const void* ptr) override;
};

// The process-lifetime RealCudaRuntime.
CudaRuntime& real_cuda_runtime();

}  // namespace devplan
