// et_copy::_h2d_copy.out and et_copy::_d2h_copy.out: host <-> device copies through the
// DeviceAllocator of the device's type.
#include <runtime_ext/executor/kernels/builtin_kernels.h>

namespace devplan {
namespace {

enum class Direction { HostToDevice, DeviceToHost };

// args: [self, out] or [self, out, returned out].
Error copy(KernelContext& ctx, Span<EValue*> args, Direction direction) {
  if (args.size() != 2 && args.size() != 3) {
    return ctx.error(ErrorCode::InvalidProgram,
                     "expected 3 arguments, got " + std::to_string(args.size()));
  }
  DEVPLAN_RETURN_IF_ERROR(require_tensor(ctx, args, 0));
  DEVPLAN_RETURN_IF_ERROR(require_tensor(ctx, args, 1));
  const Tensor& self = args[0]->tensor;
  Tensor& out = args[1]->tensor;
  const bool to_device = direction == Direction::HostToDevice;
  const size_t host_arg = to_device ? 0 : 1;
  const size_t device_arg = to_device ? 1 : 0;
  const Tensor& host = args[host_arg]->tensor;
  const Tensor& device = args[device_arg]->tensor;
  if (!host.device.is_cpu()) {
    return ctx.arg_error(ErrorCode::InvalidArgument, host_arg,
                         std::string(to_device ? "self" : "out") + " must be on the CPU, found " +
                             host.device.to_string());
  }
  if (device.device.is_cpu()) {
    return ctx.arg_error(
        ErrorCode::InvalidArgument, device_arg,
        std::string(to_device ? "out" : "self") + " must be on a device, found cpu:0");
  }
  if (self.dtype != out.dtype) {
    return ctx.arg_error(ErrorCode::InvalidType, 1,
                         "dtype " + scalar_type_name(out.dtype) + " differs from self's " +
                             scalar_type_name(self.dtype));
  }
  if (self.sizes != out.sizes || self.nbytes != out.nbytes) {
    return ctx.arg_error(ErrorCode::InvalidArgument, 1,
                         "out (" + out.describe() + ", " + std::to_string(out.nbytes) +
                             " bytes) does not match self (" + self.describe() + ", " +
                             std::to_string(self.nbytes) + " bytes)");
  }
  if (self.nbytes > 0) {
    DeviceAllocator* allocator =
        ctx.allocators == nullptr ? nullptr : ctx.allocators->get(device.device.type);
    if (allocator == nullptr) {
      return ctx.error(ErrorCode::NotFound,
                       "no device allocator registered for " + device.device.to_string());
    }
    Error err =
        to_device
            ? allocator->copy_host_to_device(out.data, self.data, self.nbytes, device.device.index)
            : allocator->copy_device_to_host(out.data, self.data, self.nbytes, device.device.index);
    if (!err.ok()) return err.with_context(ctx.op_name + " on " + device.device.to_string());
  }
  if (args.size() == 3 && args[2] != args[1]) *args[2] = *args[1];
  return Error::success();
}

}  // namespace

Error h2d_copy_kernel(KernelContext& ctx, Span<EValue*> args) {
  return copy(ctx, args, Direction::HostToDevice);
}

Error d2h_copy_kernel(KernelContext& ctx, Span<EValue*> args) {
  return copy(ctx, args, Direction::DeviceToHost);
}

}  // namespace devplan
