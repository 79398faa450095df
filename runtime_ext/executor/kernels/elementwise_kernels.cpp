// aten::add.out and aten::mul.out on host tensors.
#include <runtime_ext/executor/kernels/broadcast.h>
#include <runtime_ext/executor/kernels/builtin_kernels.h>

#include <cmath>
#include <cstdint>

namespace devplan {
namespace {

std::string shape_text(const std::vector<int32_t>& sizes) {
  std::string text = "[";
  for (size_t i = 0; i < sizes.size(); ++i) text += (i ? ", " : "") + std::to_string(sizes[i]);
  return text + "]";
}

bool is_supported_dtype(ScalarType t) {
  return t == ScalarType::Float || t == ScalarType::Double || t == ScalarType::Int ||
         t == ScalarType::Long;
}

template <typename T, typename Op>
void apply(const Tensor& a, const Tensor& b, Tensor& out, Op op) {
  const T* pa = static_cast<const T*>(a.data);
  const T* pb = static_cast<const T*>(b.data);
  T* po = static_cast<T*>(out.data);
  const int64_t n = out.numel();
  if (a.sizes == out.sizes && b.sizes == out.sizes) {
    for (int64_t i = 0; i < n; ++i) po[i] = op(pa[i], pb[i]);
    return;
  }
  const std::vector<int64_t> ia = broadcast_index_map(a.sizes, out.sizes);
  const std::vector<int64_t> ib = broadcast_index_map(b.sizes, out.sizes);
  for (int64_t i = 0; i < n; ++i) po[i] = op(pa[ia[i]], pb[ib[i]]);
}

// self at args[0], other at args[1], out at args[out_arg]; the returned value, if present,
// at args[out_arg + 1]. `alpha` scales `other` (1 for mul).
template <bool kIsAdd>
Error elementwise(KernelContext& ctx, Span<EValue*> args, size_t out_arg) {
  if (args.size() != out_arg + 1 && args.size() != out_arg + 2) {
    return ctx.error(ErrorCode::InvalidProgram, "expected " + std::to_string(out_arg + 2) +
                                                    " arguments, got " +
                                                    std::to_string(args.size()));
  }
  for (size_t arg : {size_t{0}, size_t{1}, out_arg}) {
    DEVPLAN_RETURN_IF_ERROR(require_host_tensor(ctx, args, arg));
  }
  const Tensor& a = args[0]->tensor;
  const Tensor& b = args[1]->tensor;
  Tensor& out = args[out_arg]->tensor;
  if (!is_supported_dtype(out.dtype)) {
    return ctx.arg_error(ErrorCode::NotSupported, out_arg,
                         "dtype " + scalar_type_name(out.dtype) +
                             " is not supported (float32, float64, int32, int64)");
  }
  for (size_t arg : {size_t{0}, size_t{1}}) {
    if (args[arg]->tensor.dtype != out.dtype) {
      return ctx.arg_error(ErrorCode::InvalidType, arg,
                           "dtype " + scalar_type_name(args[arg]->tensor.dtype) +
                               " differs from out's " + scalar_type_name(out.dtype));
    }
  }
  std::vector<int32_t> shape;
  if (!broadcast_shape(a.sizes, b.sizes, &shape)) {
    return ctx.error(ErrorCode::InvalidArgument, "shapes " + shape_text(a.sizes) + " and " +
                                                     shape_text(b.sizes) + " do not broadcast");
  }
  if (shape != out.sizes) {
    return ctx.arg_error(
        ErrorCode::InvalidArgument, out_arg,
        "out has shape " + shape_text(out.sizes) + " but the result has " + shape_text(shape));
  }
  const uint64_t elem = element_size(out.dtype);
  for (size_t arg : {size_t{0}, size_t{1}, out_arg}) {
    const Tensor& t = args[arg]->tensor;
    if (t.nbytes < static_cast<uint64_t>(t.numel()) * elem || (t.numel() > 0 && !t.data)) {
      return ctx.arg_error(ErrorCode::InvalidArgument, arg, "tensor has no memory for its shape");
    }
  }
  double alpha = 1.0;
  if (kIsAdd) {
    if (!args[2]->to_scalar(&alpha)) {
      return ctx.arg_error(
          ErrorCode::InvalidType, 2,
          std::string("alpha must be Int or Double, found ") + value_tag_name(args[2]->tag));
    }
    const bool integral = out.dtype == ScalarType::Int || out.dtype == ScalarType::Long;
    // A Double alpha for integer tensors must be a whole number in int64's range (a cast
    // outside it is undefined); an Int alpha is taken exactly.
    if (integral && !args[2]->is_int() &&
        (alpha != std::floor(alpha) ||
         !(alpha >= -9223372036854775808.0 && alpha < 9223372036854775808.0))) {
      return ctx.arg_error(ErrorCode::InvalidArgument, 2,
                           "alpha must be integral for integer tensors");
    }
  }
  // Integer tensors take an Int alpha exactly (a double cannot hold every int64).
  const int64_t int_alpha =
      kIsAdd && args[2]->is_int() ? args[2]->int_value : static_cast<int64_t>(kIsAdd ? alpha : 1.0);
  switch (out.dtype) {
    case ScalarType::Float:
      kIsAdd ? apply<float>(a, b, out,
                            [&](float x, float y) { return x + static_cast<float>(alpha) * y; })
             : apply<float>(a, b, out, [](float x, float y) { return x * y; });
      break;
    case ScalarType::Double:
      kIsAdd ? apply<double>(a, b, out, [&](double x, double y) { return x + alpha * y; })
             : apply<double>(a, b, out, [](double x, double y) { return x * y; });
      break;
    case ScalarType::Int: {
      const int64_t k = int_alpha;
      // Unsigned arithmetic: wrap-around instead of undefined overflow.
      kIsAdd ? apply<int32_t>(a, b, out,
                              [&](int32_t x, int32_t y) {
                                return static_cast<int32_t>(static_cast<uint32_t>(x) +
                                                            static_cast<uint32_t>(k) *
                                                                static_cast<uint32_t>(y));
                              })
             : apply<int32_t>(a, b, out, [](int32_t x, int32_t y) {
                 return static_cast<int32_t>(static_cast<uint32_t>(x) * static_cast<uint32_t>(y));
               });
      break;
    }
    default: {
      const int64_t k = int_alpha;
      kIsAdd ? apply<int64_t>(a, b, out,
                              [&](int64_t x, int64_t y) {
                                return static_cast<int64_t>(static_cast<uint64_t>(x) +
                                                            static_cast<uint64_t>(k) *
                                                                static_cast<uint64_t>(y));
                              })
             : apply<int64_t>(a, b, out, [](int64_t x, int64_t y) {
                 return static_cast<int64_t>(static_cast<uint64_t>(x) * static_cast<uint64_t>(y));
               });
      break;
    }
  }
  if (args.size() == out_arg + 2 && args[out_arg + 1] != args[out_arg]) {
    *args[out_arg + 1] = *args[out_arg];
  }
  return Error::success();
}

}  // namespace

Error add_out_kernel(KernelContext& ctx, Span<EValue*> args) {
  return elementwise<true>(ctx, args, 3);
}

Error mul_out_kernel(KernelContext& ctx, Span<EValue*> args) {
  return elementwise<false>(ctx, args, 2);
}

}  // namespace devplan
