// Internal to devplan::cuda: the launch of the broadcasting add and mul kernels, kept apart from
// devplan's headers so that nvcc compiles only the kernels. Use cuda_elementwise_binary() instead.
//
//   launch_elementwise_binary_kernel(a, b, out, n, indexing, BinaryKernelOp::Mul,
//                                    BinaryKernelDtype::Float32);
//   int status = cudaGetLastError();   // the launch's status; the kernel runs asynchronously
#pragma once

#include <cstddef>

#include <runtime_ext/cuda/broadcast_indexing.h>

namespace devplan {

enum class BinaryKernelOp { Add, Mul };
enum class BinaryKernelDtype { Float32, Float64, Int32, Int64 };

// Queues out[i] = a[ia(i)] op b[ib(i)] for i < n on the current device's default stream, with
// the operand indices from `indexing`. Floating point rounds each operation to nearest (no
// fused multiply-add, no flush of subnormals), so the bits equal the host kernel's; integers
// wrap. n must be > 0 and the pointers device memory of the current device.
void launch_elementwise_binary_kernel(const void* a, const void* b, void* out, size_t n,
                                      const BroadcastIndexing& indexing, BinaryKernelOp op,
                                      BinaryKernelDtype dtype);

}  // namespace devplan
