// The built-in host kernels. Each checks its arguments (count, tags, dtypes, shapes, devices)
// and returns an error naming the operator and the value at fault; none dereferences device
// memory.
//
// aten::add.out(self, other, alpha, out) -> out     out = self + alpha * other
// aten::mul.out(self, other, out) -> out            out = self * other
//   float32, float64, int32, int64; self, other and out share one dtype; self and other
//   broadcast (numpy rules) to out's shape, which must equal the broadcast shape.
// et_copy::_h2d_copy.out(self, out) -> out   self on the CPU, out on a device (device from out)
// et_copy::_d2h_copy.out(self, out) -> out   self on a device (device from self), out on the CPU
//   dtype and size must match; zero-size tensors copy nothing; the copy goes through the
//   DeviceAllocator registered for the device's type (NotFound when there is none).
#pragma once

#include <runtime_ext/executor/kernel_context.h>

namespace devplan {

Error add_out_kernel(KernelContext& ctx, Span<EValue*> args);
Error mul_out_kernel(KernelContext& ctx, Span<EValue*> args);
Error h2d_copy_kernel(KernelContext& ctx, Span<EValue*> args);
Error d2h_copy_kernel(KernelContext& ctx, Span<EValue*> args);

}  // namespace devplan
