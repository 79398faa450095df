// cuda_elementwise_add's argument checks that come before any CUDA call, so they need no GPU.
#include <gtest/gtest.h>
#include <runtime_ext/cuda/cuda_elementwise_add.h>

namespace devplan {
namespace {

TEST(CudaElementwiseAddArgsTest, UnsupportedDtypeIsNotSupported) {
  float a = 1, b = 2, out = 0;
  Error error = cuda_elementwise_add(&a, &b, &out, 1, ScalarType::Double, 0);
  EXPECT_EQ(error.code(), ErrorCode::NotSupported);
  EXPECT_EQ(error.message(),
            "cuda_elementwise_add: dtype ScalarType(7) on cuda:0 is not supported (float32, "
            "int32 and int64 are)");
  EXPECT_EQ(cuda_elementwise_add(&a, &b, &out, 1, ScalarType::Bool, 2).message(),
            "cuda_elementwise_add: dtype ScalarType(11) on cuda:2 is not supported (float32, "
            "int32 and int64 are)");
  EXPECT_EQ(out, 0);
}

TEST(CudaElementwiseAddArgsTest, ZeroElementsIsANoOp) {
  for (ScalarType dtype : {ScalarType::Float, ScalarType::Int, ScalarType::Long}) {
    EXPECT_TRUE(cuda_elementwise_add(nullptr, nullptr, nullptr, 0, dtype, 0).ok());
  }
}

TEST(CudaElementwiseAddArgsTest, NegativeDeviceIsInvalidArgument) {
  float a = 1, b = 2, out = 0;
  Error error = cuda_elementwise_add(&a, &b, &out, 1, ScalarType::Float, -1);
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(error.message(),
            "cuda_elementwise_add: invalid device cuda:-1: a CUDA device index is never negative");
  EXPECT_EQ(out, 0);
}

}  // namespace
}  // namespace devplan
