#include <runtime_ext/cuda/elementwise_add_kernel.h>

#include <cstdint>

namespace devplan {
namespace {

constexpr unsigned kThreadsPerBlock = 256;
constexpr size_t kMaxBlocks = 4096;  // a grid-stride loop covers the rest

// T: the element type; U: the type the addition is done in (unsigned for integers, so that
// overflow wraps instead of being undefined).
template <typename T, typename U>
__global__ void add_kernel(const T* a, const T* b, T* out, size_t n) {
  const size_t stride = static_cast<size_t>(blockDim.x) * gridDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    out[i] = static_cast<T>(static_cast<U>(a[i]) + static_cast<U>(b[i]));
  }
}

template <typename T, typename U>
void launch(const void* a, const void* b, void* out, size_t n) {
  size_t blocks = (n + kThreadsPerBlock - 1) / kThreadsPerBlock;
  if (blocks > kMaxBlocks) blocks = kMaxBlocks;
  add_kernel<T, U><<<static_cast<unsigned>(blocks), kThreadsPerBlock>>>(
      static_cast<const T*>(a), static_cast<const T*>(b), static_cast<T*>(out), n);
}

}  // namespace

void launch_elementwise_add_kernel(const void* a, const void* b, void* out, size_t n,
                                   AddKernelDtype dtype) {
  switch (dtype) {
    case AddKernelDtype::Float32:
      launch<float, float>(a, b, out, n);
      break;
    case AddKernelDtype::Int32:
      launch<int32_t, uint32_t>(a, b, out, n);
      break;
    case AddKernelDtype::Int64:
      launch<int64_t, uint64_t>(a, b, out, n);
      break;
  }
}

}  // namespace devplan
