// cuda_elementwise_binary's checks that need no GPU: which cases the kernels take.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include <runtime_ext/cuda/cuda_elementwise_binary.h>

namespace devplan {
namespace {

Tensor tensor(ScalarType dtype, std::vector<int32_t> sizes, void* data) {
  Tensor t;
  t.dtype = dtype;
  t.sizes = std::move(sizes);
  t.data = data;
  t.nbytes = static_cast<uint64_t>(t.numel()) * element_size(dtype);
  t.device = Device::cuda(0);
  return t;
}

TEST(CudaElementwiseBinaryHandles, TheHostKernelsDtypesWithBroadcasting) {
  uint64_t storage[16] = {};
  for (ScalarType dtype :
       {ScalarType::Float, ScalarType::Double, ScalarType::Int, ScalarType::Long}) {
    EXPECT_TRUE(cuda_elementwise_binary_handles(tensor(dtype, {2, 1}, storage),
                                                tensor(dtype, {3}, storage),
                                                tensor(dtype, {2, 3}, storage)));
  }
}

TEST(CudaElementwiseBinaryHandles, EverythingTheHostKernelRefusesIsLeftToIt) {
  uint64_t storage[16] = {};
  const Tensor f = tensor(ScalarType::Float, {4}, storage);
  EXPECT_FALSE(cuda_elementwise_binary_handles(tensor(ScalarType::Half, {4}, storage),
                                               tensor(ScalarType::Half, {4}, storage),
                                               tensor(ScalarType::Half, {4}, storage)));
  EXPECT_FALSE(cuda_elementwise_binary_handles(tensor(ScalarType::Int, {4}, storage), f, f));
  EXPECT_FALSE(cuda_elementwise_binary_handles(f, f, tensor(ScalarType::Float, {5}, storage)));
  Tensor short_of_bytes = f;
  short_of_bytes.nbytes = 12;
  EXPECT_FALSE(cuda_elementwise_binary_handles(f, short_of_bytes, f));
  Tensor no_memory = f;
  no_memory.data = nullptr;
  EXPECT_FALSE(cuda_elementwise_binary_handles(f, f, no_memory));
  const Tensor empty = tensor(ScalarType::Float, {0}, nullptr);
  EXPECT_TRUE(cuda_elementwise_binary_handles(empty, empty, empty));
}

TEST(CudaElementwiseBinary, ACaseTheKernelsDoNotHandleIsAnErrorBeforeAnyCudaCall) {
  uint64_t storage[4] = {};
  const Tensor f = tensor(ScalarType::Float, {4}, storage);
  const Tensor i = tensor(ScalarType::Int, {4}, storage);
  Error e = cuda_elementwise_binary(ElementwiseBinaryOp::Add, f, i, f, 0);
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(e.message().rfind("cuda_elementwise_binary: a case the kernels do not handle: ", 0),
            0u);
}

}  // namespace
}  // namespace devplan
