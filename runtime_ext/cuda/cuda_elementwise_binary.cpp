#include <cuda_runtime_api.h>
#include <runtime_ext/cuda/broadcast_indexing.h>
#include <runtime_ext/cuda/cuda_device_guard.h>
#include <runtime_ext/cuda/cuda_elementwise_binary.h>
#include <runtime_ext/cuda/cuda_error.h>
#include <runtime_ext/cuda/cuda_pointer_check.h>
#include <runtime_ext/cuda/elementwise_binary_kernel.h>
#include <runtime_ext/cuda/real_cuda_runtime.h>
#include <runtime_ext/program/scalar_type.h>

#include <string>

namespace devplan {
namespace {

constexpr char kName[] = "cuda_elementwise_binary";

bool kernel_dtype(ScalarType dtype, BinaryKernelDtype* kernel) {
  switch (dtype) {
    case ScalarType::Float:
      *kernel = BinaryKernelDtype::Float32;
      return true;
    case ScalarType::Double:
      *kernel = BinaryKernelDtype::Float64;
      return true;
    case ScalarType::Int:
      *kernel = BinaryKernelDtype::Int32;
      return true;
    case ScalarType::Long:
      *kernel = BinaryKernelDtype::Int64;
      return true;
    default:
      return false;
  }
}

bool holds_its_elements(const Tensor& t) {
  const int64_t n = t.numel();
  if (n < 0) return false;
  const uint64_t size = element_size(t.dtype);
  if (size != 0 && static_cast<uint64_t>(n) > UINT64_MAX / size) return false;
  return t.nbytes >= static_cast<uint64_t>(n) * size && (n == 0 || t.data != nullptr);
}

}  // namespace

bool cuda_elementwise_binary_handles(const Tensor& a, const Tensor& b, const Tensor& out) {
  BinaryKernelDtype kernel = BinaryKernelDtype::Float32;
  if (!kernel_dtype(out.dtype, &kernel) || a.dtype != out.dtype || b.dtype != out.dtype) {
    return false;
  }
  if (!broadcast_indexing(a.sizes, b.sizes, out.sizes)) return false;
  return holds_its_elements(a) && holds_its_elements(b) && holds_its_elements(out);
}

Error cuda_elementwise_binary(ElementwiseBinaryOp op, const Tensor& a, const Tensor& b,
                              const Tensor& out, DeviceIndex device) {
  const std::string device_name = Device::cuda(device).to_string();
  if (!cuda_elementwise_binary_handles(a, b, out)) {
    return Error(ErrorCode::InvalidArgument,
                 std::string(kName) + ": a case the kernels do not handle: " + a.describe() + ", " +
                     b.describe() + " into " + out.describe());
  }
  const std::optional<BroadcastIndexing> indexing = broadcast_indexing(a.sizes, b.sizes, out.sizes);
  BinaryKernelDtype kernel = BinaryKernelDtype::Float32;
  (void)kernel_dtype(out.dtype, &kernel);
  const int64_t n = out.numel();
  if (n == 0) return Error::success();

  CudaRuntime& runtime = real_cuda_runtime();
  DEVPLAN_RETURN_IF_ERROR(validate_cuda_device(runtime, device).with_context(kName));
  DEVPLAN_RETURN_IF_ERROR(
      check_cuda_device_pointer(runtime, a.data, device, "input a").with_context(kName));
  DEVPLAN_RETURN_IF_ERROR(
      check_cuda_device_pointer(runtime, b.data, device, "input b").with_context(kName));
  DEVPLAN_RETURN_IF_ERROR(
      check_cuda_device_pointer(runtime, out.data, device, "output out").with_context(kName));

  CudaDeviceGuard guard(runtime);
  DEVPLAN_RETURN_IF_ERROR(guard.select(device).with_context(kName));
  const std::string what = std::string(op == ElementwiseBinaryOp::Add ? "add" : "mul") + " of " +
                           std::to_string(n) + " " + scalar_type_name(out.dtype) + " elements on " +
                           device_name;
  launch_elementwise_binary_kernel(
      a.data, b.data, out.data, static_cast<size_t>(n), *indexing,
      op == ElementwiseBinaryOp::Add ? BinaryKernelOp::Add : BinaryKernelOp::Mul, kernel);
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
