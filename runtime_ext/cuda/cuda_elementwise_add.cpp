#include <runtime_ext/cuda/cuda_elementwise_add.h>
#include <runtime_ext/cuda/cuda_kernel_launch.h>
#include <runtime_ext/cuda/elementwise_add_kernel.h>

#include <string>

namespace devplan {
namespace {

constexpr char kName[] = "cuda_elementwise_add";

// The kernel for `dtype`, or false when there is none.
bool kernel_dtype(ScalarType dtype, AddKernelDtype* kernel) {
  switch (dtype) {
    case ScalarType::Float:
      *kernel = AddKernelDtype::Float32;
      return true;
    case ScalarType::Int:
      *kernel = AddKernelDtype::Int32;
      return true;
    case ScalarType::Long:
      *kernel = AddKernelDtype::Int64;
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
  if (!kernel_dtype(dtype, &kernel)) {
    return Error(ErrorCode::NotSupported, std::string(kName) + ": dtype ScalarType(" +
                                              std::to_string(static_cast<int>(dtype)) + ") on " +
                                              device_name +
                                              " is not supported (float32, int32 and int64 are)");
  }
  if (n == 0) return Error::success();

  const std::string what = std::string("add of ") + std::to_string(n) + " " +
                           scalar_type_name(dtype) + " elements on " + device_name;
  return run_cuda_kernel(kName, device, a, b, out, what,
                         [&] { launch_elementwise_add_kernel(a, b, out, n, kernel); });
}

}  // namespace devplan
