#include <runtime_ext/cuda/cuda_device_count.h>
#include <runtime_ext/cuda/cuda_error.h>

namespace devplan {

std::string CudaDeviceCount::describe() const {
  if (!ok()) return error;
  return std::to_string(count) + (count == 1 ? " CUDA device" : " CUDA devices");
}

CudaDeviceCount cuda_device_count(CudaRuntime& runtime) {
  CudaDeviceCount result;
  int count = 0;
  result.status = runtime.get_device_count(&count);
  if (result.status != kCudaSuccess) {
    result.error = cuda_status_error(runtime, result.status, "cudaGetDeviceCount").message();
    return result;
  }
  result.count = count > 0 ? count : 0;
  return result;
}

}  // namespace devplan
