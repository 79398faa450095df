#include <runtime_ext/executor/kernel_context.h>

namespace devplan {

Error KernelContext::arg_error(ErrorCode code, size_t arg, const std::string& what) const {
  const std::string value = arg < value_indices.size()
                                ? "value " + std::to_string(value_indices[arg])
                                : "argument " + std::to_string(arg);
  return Error(code, op_name + ": " + value + ": " + what);
}

Error KernelContext::error(ErrorCode code, const std::string& what) const {
  return Error(code, op_name + ": " + what);
}

Error require_tensor(const KernelContext& ctx, Span<EValue*> args, size_t arg) {
  if (arg >= args.size()) {
    return ctx.error(ErrorCode::InvalidProgram, "expected at least " + std::to_string(arg + 1) +
                                                    " arguments, got " +
                                                    std::to_string(args.size()));
  }
  if (!args[arg]->is_tensor()) {
    return ctx.arg_error(ErrorCode::InvalidType, arg,
                         std::string("expected a Tensor, found ") + value_tag_name(args[arg]->tag));
  }
  return Error::success();
}

Error require_host_tensor(const KernelContext& ctx, Span<EValue*> args, size_t arg) {
  DEVPLAN_RETURN_IF_ERROR(require_tensor(ctx, args, arg));
  const Tensor& t = args[arg]->tensor;
  if (!t.device.is_cpu()) {
    return ctx.arg_error(
        ErrorCode::InvalidArgument, arg,
        "tensor is on " + t.device.to_string() + "; a host kernel cannot read device memory");
  }
  return Error::success();
}

}  // namespace devplan
