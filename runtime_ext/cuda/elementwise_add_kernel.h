// Internal to devplan::cuda: the launch of the elementwise add kernels, kept apart from devplan's
// headers so that nvcc compiles only the kernels. Use cuda_elementwise_add() instead.
//
//   launch_elementwise_add_kernel(a, b, out, n, AddKernelDtype::Float32);
//   int status = cudaGetLastError();   // the launch's status; the kernel runs asynchronously
#pragma once

#include <cstddef>

namespace devplan {

enum class AddKernelDtype { Float32, Int32, Int64 };

// Queues out[i] = a[i] + b[i] for i < n on the current device's default stream. Integer
// addition wraps. n must be > 0 and the pointers device memory of the current device.
void launch_elementwise_add_kernel(const void* a, const void* b, void* out, size_t n,
                                   AddKernelDtype dtype);

}  // namespace devplan
