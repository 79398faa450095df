#include <runtime_ext/cuda/broadcast_indexing.h>
#include <runtime_ext/cuda/cuda_elementwise_binary.h>
#include <runtime_ext/cuda/cuda_kernel_launch.h>
#include <runtime_ext/cuda/elementwise_binary_kernel.h>
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

  const std::string what = std::string(op == ElementwiseBinaryOp::Add ? "add" : "mul") + " of " +
                           std::to_string(n) + " " + scalar_type_name(out.dtype) + " elements on " +
                           device_name;
  return run_cuda_kernel(kName, device, a.data, b.data, out.data, what, [&] {
    launch_elementwise_binary_kernel(
        a.data, b.data, out.data, static_cast<size_t>(n), *indexing,
        op == ElementwiseBinaryOp::Add ? BinaryKernelOp::Add : BinaryKernelOp::Mul, kernel);
  });
}

}  // namespace devplan
