#include <runtime_ext/cuda/elementwise_binary_kernel.h>

#include <cstdint>

namespace devplan {
namespace {

constexpr unsigned kThreadsPerBlock = 256;
constexpr size_t kMaxBlocks = 4096;  // a grid-stride loop covers the rest

struct AddOp {
  __device__ float operator()(float x, float y) const { return __fadd_rn(x, y); }
  __device__ double operator()(double x, double y) const { return __dadd_rn(x, y); }
  __device__ int32_t operator()(int32_t x, int32_t y) const {
    return static_cast<int32_t>(static_cast<uint32_t>(x) + static_cast<uint32_t>(y));
  }
  __device__ int64_t operator()(int64_t x, int64_t y) const {
    return static_cast<int64_t>(static_cast<uint64_t>(x) + static_cast<uint64_t>(y));
  }
};

struct MulOp {
  __device__ float operator()(float x, float y) const { return __fmul_rn(x, y); }
  __device__ double operator()(double x, double y) const { return __dmul_rn(x, y); }
  __device__ int32_t operator()(int32_t x, int32_t y) const {
    return static_cast<int32_t>(static_cast<uint32_t>(x) * static_cast<uint32_t>(y));
  }
  __device__ int64_t operator()(int64_t x, int64_t y) const {
    return static_cast<int64_t>(static_cast<uint64_t>(x) * static_cast<uint64_t>(y));
  }
};

template <typename T, typename Op>
__global__ void binary_kernel(const T* a, const T* b, T* out, size_t n, BroadcastIndexing ix,
                              Op op) {
  const size_t stride = static_cast<size_t>(blockDim.x) * gridDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    int64_t rest = static_cast<int64_t>(i), ia = 0, ib = 0;
    for (int d = ix.dims - 1; d >= 0; --d) {
      const int64_t coord = rest % ix.out_sizes[d];
      rest /= ix.out_sizes[d];
      ia += coord * ix.a_strides[d];
      ib += coord * ix.b_strides[d];
    }
    out[i] = op(a[ia], b[ib]);
  }
}

template <typename T, typename Op>
void launch(const void* a, const void* b, void* out, size_t n, const BroadcastIndexing& ix) {
  size_t blocks = (n + kThreadsPerBlock - 1) / kThreadsPerBlock;
  if (blocks > kMaxBlocks) blocks = kMaxBlocks;
  binary_kernel<T, Op><<<static_cast<unsigned>(blocks), kThreadsPerBlock>>>(
      static_cast<const T*>(a), static_cast<const T*>(b), static_cast<T*>(out), n, ix, Op());
}

template <typename Op>
void launch_for(const void* a, const void* b, void* out, size_t n, const BroadcastIndexing& ix,
                BinaryKernelDtype dtype) {
  switch (dtype) {
    case BinaryKernelDtype::Float32:
      launch<float, Op>(a, b, out, n, ix);
      break;
    case BinaryKernelDtype::Float64:
      launch<double, Op>(a, b, out, n, ix);
      break;
    case BinaryKernelDtype::Int32:
      launch<int32_t, Op>(a, b, out, n, ix);
      break;
    case BinaryKernelDtype::Int64:
      launch<int64_t, Op>(a, b, out, n, ix);
      break;
  }
}

}  // namespace

void launch_elementwise_binary_kernel(const void* a, const void* b, void* out, size_t n,
                                      const BroadcastIndexing& indexing, BinaryKernelOp op,
                                      BinaryKernelDtype dtype) {
  if (op == BinaryKernelOp::Add) {
    launch_for<AddOp>(a, b, out, n, indexing, dtype);
  } else {
    launch_for<MulOp>(a, b, out, n, indexing, dtype);
  }
}

}  // namespace devplan
