// CudaRuntime: the thin seam through which devplan's CUDA code calls the CUDA runtime, so the
// allocator's logic (device selection and restore, alignment, error mapping) runs in unit tests
// against a fake on machines without a GPU.
//
//   CudaRuntime& rt = real_cuda_runtime();          // runtime_ext/cuda/real_cuda_runtime.h
//   int count = 0;
//   if (rt.get_device_count(&count) != kCudaSuccess) { ... }
//   CudaAllocator allocator(rt);                     // or CudaAllocator(fake) in a test
//
// Each method mirrors one CUDA runtime call and returns its status as an int with the values
// of cudaError_t (kCudaSuccess = 0). Nothing here includes a CUDA header; RealCudaRuntime
// checks at compile time that the constants below equal CUDA's.
//
// Threading: implementations must be callable from many threads at once. As in CUDA, the
// current device (get_device/set_device) is a per-thread setting of the real runtime.
#pragma once

#include <cstddef>

namespace devplan {

// cudaError_t values used by devplan's code and tests.
constexpr int kCudaSuccess = 0;
constexpr int kCudaErrorInvalidValue = 1;
constexpr int kCudaErrorMemoryAllocation = 2;
constexpr int kCudaErrorInitializationError = 3;
constexpr int kCudaErrorInsufficientDriver = 35;
constexpr int kCudaErrorNoDevice = 100;
constexpr int kCudaErrorInvalidDevice = 101;
constexpr int kCudaErrorIllegalAddress = 700;
constexpr int kCudaErrorUnknown = 999;

// cudaMemcpyKind, restricted to the directions devplan copies in (values equal CUDA's).
enum class CudaMemcpyDirection : int {
  HostToDevice = 1,
  DeviceToHost = 2,
  DeviceToDevice = 3,
};

// cudaMemoryType (values equal CUDA's).
enum class CudaMemoryType : int {
  Unregistered = 0,
  Host = 1,
  Device = 2,
  Managed = 3,
};

// The part of cudaPointerAttributes devplan reads.
struct CudaPointerAttributes {
  CudaMemoryType type = CudaMemoryType::Unregistered;
  int device = -1;  // the device ordinal owning the memory; meaningful for Device and Managed
};

class CudaRuntime {
 public:
  virtual ~CudaRuntime() = default;

  // cudaGetDeviceCount.
  virtual int get_device_count(int* count) = 0;
  // cudaGetDevice: the calling thread's current device.
  virtual int get_device(int* device) = 0;
  // cudaSetDevice.
  virtual int set_device(int device) = 0;
  // cudaMalloc on the current device.
  virtual int malloc(void** ptr, size_t nbytes) = 0;
  // cudaFree (nullptr is accepted and does nothing, as in CUDA).
  virtual int free(void* ptr) = 0;
  // cudaMemcpy (synchronous with respect to the host).
  virtual int memcpy(void* dst, const void* src, size_t nbytes, CudaMemcpyDirection direction) = 0;
  // cudaGetErrorString: never nullptr, valid for the life of the process.
  virtual const char* get_error_string(int status) = 0;
  // cudaMemGetInfo for the current device.
  virtual int mem_get_info(size_t* free_bytes, size_t* total_bytes) = 0;
  // cudaPointerGetAttributes.
  virtual int pointer_get_attributes(CudaPointerAttributes* attributes, const void* ptr) = 0;
};

}  // namespace devplan
