#include <cuda_runtime_api.h>
#include <runtime_ext/cuda/cuda_device_count.h>
#include <runtime_ext/cuda/real_cuda_runtime.h>

namespace devplan {

static_assert(kCudaSuccess == cudaSuccess, "status values must equal cudaError_t");
static_assert(kCudaErrorInvalidValue == cudaErrorInvalidValue, "");
static_assert(kCudaErrorMemoryAllocation == cudaErrorMemoryAllocation, "");
static_assert(kCudaErrorInitializationError == cudaErrorInitializationError, "");
static_assert(kCudaErrorInsufficientDriver == cudaErrorInsufficientDriver, "");
static_assert(kCudaErrorNoDevice == cudaErrorNoDevice, "");
static_assert(kCudaErrorInvalidDevice == cudaErrorInvalidDevice, "");
static_assert(kCudaErrorIllegalAddress == cudaErrorIllegalAddress, "");
static_assert(kCudaErrorUnknown == cudaErrorUnknown, "");
static_assert(static_cast<int>(CudaMemcpyDirection::HostToDevice) == cudaMemcpyHostToDevice, "");
static_assert(static_cast<int>(CudaMemcpyDirection::DeviceToHost) == cudaMemcpyDeviceToHost, "");
static_assert(static_cast<int>(CudaMemcpyDirection::DeviceToDevice) == cudaMemcpyDeviceToDevice,
              "");
static_assert(static_cast<int>(CudaMemoryType::Unregistered) == cudaMemoryTypeUnregistered, "");
static_assert(static_cast<int>(CudaMemoryType::Host) == cudaMemoryTypeHost, "");
static_assert(static_cast<int>(CudaMemoryType::Device) == cudaMemoryTypeDevice, "");
static_assert(static_cast<int>(CudaMemoryType::Managed) == cudaMemoryTypeManaged, "");

int RealCudaRuntime::get_device_count(int* count) { return cudaGetDeviceCount(count); }

int RealCudaRuntime::get_device(int* device) { return cudaGetDevice(device); }

int RealCudaRuntime::set_device(int device) { return cudaSetDevice(device); }

int RealCudaRuntime::malloc(void** ptr, size_t nbytes) { return cudaMalloc(ptr, nbytes); }

int RealCudaRuntime::free(void* ptr) { return cudaFree(ptr); }

int RealCudaRuntime::memcpy(void* dst, const void* src, size_t nbytes,
                            CudaMemcpyDirection direction) {
  return cudaMemcpy(dst, src, nbytes, static_cast<cudaMemcpyKind>(direction));
}

const char* RealCudaRuntime::get_error_string(int status) {
  return cudaGetErrorString(static_cast<cudaError_t>(status));
}

int RealCudaRuntime::mem_get_info(size_t* free_bytes, size_t* total_bytes) {
  return cudaMemGetInfo(free_bytes, total_bytes);
}

int RealCudaRuntime::pointer_get_attributes(CudaPointerAttributes* attributes, const void* ptr) {
  cudaPointerAttributes raw{};
  const cudaError_t status = cudaPointerGetAttributes(&raw, ptr);
  if (status != cudaSuccess) return status;
  attributes->type = static_cast<CudaMemoryType>(raw.type);
  attributes->device = raw.device;
  return cudaSuccess;
}

CudaRuntime& real_cuda_runtime() {
  // Never destroyed, so allocators that outlive static destruction can still use it.
  static RealCudaRuntime* const runtime = new RealCudaRuntime();
  return *runtime;
}

CudaDeviceCount cuda_device_count() { return cuda_device_count(real_cuda_runtime()); }

}  // namespace devplan
