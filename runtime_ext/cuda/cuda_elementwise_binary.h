// cuda_elementwise_binary: out = a + b or a * b, with a and b broadcast to out's shape, as a CUDA
// kernel on one device: the compute of the device backends on a GPU (DeviceAddBackend and
// DevplanDeviceBackend under `--device cuda`). Part of devplan::cuda (builds with CUDA only).
//
//   if (cuda_elementwise_binary_handles(a, b, out))
//     DEVPLAN_RETURN_IF_ERROR(cuda_elementwise_binary(ElementwiseBinaryOp::Mul, a, b, out, 0));
//
// It computes exactly what the host kernel (aten::add.out with alpha 1, aten::mul.out) computes,
// to the bit: each floating-point operation rounds to nearest, integers wrap.
#pragma once

#include <runtime_ext/core/device.h>
#include <runtime_ext/core/error.h>
#include <runtime_ext/executor/tensor.h>

namespace devplan {

enum class ElementwiseBinaryOp { Add, Mul };

// Whether the kernels handle (a, b, out): one dtype for all three, float32, float64, int32 or
// int64; a and b broadcast to out's shape exactly (at most 8 dimensions); each tensor's bytes
// hold its elements. These are the cases the host kernel computes; the others are its errors.
bool cuda_elementwise_binary_handles(const Tensor& a, const Tensor& b, const Tensor& out);

// Runs the op on cuda:<device> (the GPU the three tensors' memory is on, whatever device their
// metadata names) and waits for it, so a kernel fault is reported here. The caller's current
// device is restored on every path. InvalidArgument for a case not handled, or when a pointer is
// not memory on that device (check_cuda_device_pointer), checked before anything is launched;
// the mapped CUDA error of a failing launch or synchronisation. Zero elements launch nothing.
// Messages start with "cuda_elementwise_binary: ".
Error cuda_elementwise_binary(ElementwiseBinaryOp op, const Tensor& a, const Tensor& b,
                              const Tensor& out, DeviceIndex device);

}  // namespace devplan
