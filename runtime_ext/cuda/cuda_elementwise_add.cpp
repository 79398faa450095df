#include <cuda_runtime_api.h>
#include <runtime_ext/cuda/cuda_device_guard.h>
#include <runtime_ext/cuda/cuda_elementwise_add.h>
#include <runtime_ext/cuda/cuda_error.h>
#include <runtime_ext/cuda/cuda_pointer_check.h>
#include <runtime_ext/cuda/elementwise_add_kernel.h>
#include <runtime_ext/cuda/real_cuda_runtime.h>

#include <string>

namespace devplan {
namespace {

constexpr char kName[] = "cuda_elementwise_add";

// The kernel for `dtype` and its name, or false when there is none.
bool kernel_dtype(ScalarType dtype, AddKernelDtype* kernel, const char** name) {
  switch (dtype) {
    case ScalarType::Float:
      *kernel = AddKernelDtype::Float32;
      *name = "float32";
      return true;
    case ScalarType::Int:
      *kernel = AddKernelDtype::Int32;
      *name = "int32";
      return true;
    case ScalarType::Long:
      *kernel = AddKernelDtype::Int64;
      *name = "int64";
      return true;
    default:
      return false;
  }
}

}  // namespace

Error cuda_elementwise_add(const void* a, const void* b, void* out, size_t n, ScalarType dtype,
                           DeviceIndex device) {
  const std::string device_name = Device::cuda(device).to_string();
  AddKernelDtype kernel = AddKernelDtype::Float32;
  const char* dtype_name = nullptr;
  if (!kernel_dtype(dtype, &kernel, &dtype_name)) {
    return Error(ErrorCode::NotSupported, std::string(kName) + ": dtype ScalarType(" +
                                              std::to_string(static_cast<int>(dtype)) + ") on " +
                                              device_name +
                                              " is not supported (float32, int32 and int64 are)");
  }
  if (n == 0) return Error::success();

  CudaRuntime& runtime = real_cuda_runtime();
  DEVPLAN_RETURN_IF_ERROR(validate_cuda_device(runtime, device).with_context(kName));
  DEVPLAN_RETURN_IF_ERROR(
      check_cuda_device_pointer(runtime, a, device, "input a").with_context(kName));
  DEVPLAN_RETURN_IF_ERROR(
      check_cuda_device_pointer(runtime, b, device, "input b").with_context(kName));
  DEVPLAN_RETURN_IF_ERROR(
      check_cuda_device_pointer(runtime, out, device, "output out").with_context(kName));

  CudaDeviceGuard guard(runtime);
  DEVPLAN_RETURN_IF_ERROR(guard.select(device).with_context(kName));
  const std::string what =
      std::string("add of ") + std::to_string(n) + " " + dtype_name + " elements on " + device_name;
  launch_elementwise_add_kernel(a, b, out, n, kernel);
  int status = cudaGetLastError();
  if (status != kCudaSuccess) {
    return cuda_status_error(runtime, status, "launching the " + what).with_context(kName);
  }
  // Waiting here reports a fault of this kernel to this call rather than to a later one.
  status = cudaStreamSynchronize(nullptr);
  if (status != kCudaSuccess) {
    return cuda_status_error(runtime, status, "running the " + what).with_context(kName);
  }
  return guard.restore().with_context(kName);
}

}  // namespace devplan
