#include <cuda_runtime_api.h>
#include <runtime_ext/cuda/cuda_device_guard.h>
#include <runtime_ext/cuda/cuda_error.h>
#include <runtime_ext/cuda/cuda_kernel_launch.h>
#include <runtime_ext/cuda/cuda_pointer_check.h>
#include <runtime_ext/cuda/real_cuda_runtime.h>

namespace devplan {

Error run_cuda_kernel(const char* name, DeviceIndex device, const void* a, const void* b,
                      const void* out, const std::string& what,
                      const std::function<void()>& launch) {
  CudaRuntime& runtime = real_cuda_runtime();
  DEVPLAN_RETURN_IF_ERROR(validate_cuda_device(runtime, device).with_context(name));
  DEVPLAN_RETURN_IF_ERROR(
      check_cuda_device_pointer(runtime, a, device, "input a").with_context(name));
  DEVPLAN_RETURN_IF_ERROR(
      check_cuda_device_pointer(runtime, b, device, "input b").with_context(name));
  DEVPLAN_RETURN_IF_ERROR(
      check_cuda_device_pointer(runtime, out, device, "output out").with_context(name));

  CudaDeviceGuard guard(runtime);
  DEVPLAN_RETURN_IF_ERROR(guard.select(device).with_context(name));
  launch();
  int status = cudaGetLastError();
  if (status != kCudaSuccess) {
    return cuda_status_error(runtime, status, "launching the " + what).with_context(name);
  }
  // Waiting here reports a fault of this kernel to this call rather than to a later one.
  status = cudaStreamSynchronize(nullptr);
  if (status != kCudaSuccess) {
    return cuda_status_error(runtime, status, "running the " + what).with_context(name);
  }
  return guard.restore().with_context(name);
}

}  // namespace devplan
