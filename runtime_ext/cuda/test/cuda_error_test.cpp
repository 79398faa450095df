#include <gtest/gtest.h>
#include <runtime_ext/cuda/cuda_error.h>

#include "fake_cuda_runtime.h"

namespace devplan {
namespace {

using testing::FakeCudaRuntime;

TEST(CudaErrorTest, MapsEachStatusToItsCode) {
  EXPECT_EQ(cuda_status_code(kCudaSuccess), ErrorCode::Ok);
  EXPECT_EQ(cuda_status_code(kCudaErrorMemoryAllocation), ErrorCode::MemoryAllocationFailed);
  EXPECT_EQ(cuda_status_code(kCudaErrorInvalidValue), ErrorCode::InvalidArgument);
  EXPECT_EQ(cuda_status_code(kCudaErrorInvalidDevice), ErrorCode::InvalidArgument);
  EXPECT_EQ(cuda_status_code(kCudaErrorNoDevice), ErrorCode::InvalidArgument);
  EXPECT_EQ(cuda_status_code(kCudaErrorInsufficientDriver), ErrorCode::Internal);
  EXPECT_EQ(cuda_status_code(kCudaErrorInitializationError), ErrorCode::Internal);
  EXPECT_EQ(cuda_status_code(kCudaErrorIllegalAddress), ErrorCode::Internal);
  EXPECT_EQ(cuda_status_code(kCudaErrorUnknown), ErrorCode::Internal);
  EXPECT_EQ(cuda_status_code(46), ErrorCode::Internal);
  EXPECT_EQ(cuda_status_code(-1), ErrorCode::Internal);
}

TEST(CudaErrorTest, MessageCarriesTheCallTheCudaTextAndTheStatus) {
  FakeCudaRuntime fake;
  Error error =
      cuda_status_error(fake, kCudaErrorMemoryAllocation, "cudaMalloc of 8 bytes on cuda:3");
  EXPECT_EQ(error.code(), ErrorCode::MemoryAllocationFailed);
  EXPECT_EQ(error.message(),
            "cudaMalloc of 8 bytes on cuda:3 failed: out of memory (CUDA error 2)");
  EXPECT_EQ(fake.calls(), (std::vector<std::string>{"get_error_string(2)"}));

  Error unknown = cuda_status_error(fake, 12345, "cudaFree on cuda:0");
  EXPECT_EQ(unknown.code(), ErrorCode::Internal);
  EXPECT_EQ(unknown.message(),
            "cudaFree on cuda:0 failed: unrecognized error code (CUDA error 12345)");
}

TEST(CudaErrorTest, SuccessIsOkAndAsksForNoText) {
  FakeCudaRuntime fake;
  EXPECT_TRUE(cuda_status_error(fake, kCudaSuccess, "cudaMalloc").ok());
  EXPECT_TRUE(fake.calls().empty());
}

class NullStringRuntime : public FakeCudaRuntime {
 public:
  const char* get_error_string(int) override { return nullptr; }
};

TEST(CudaErrorTest, NullErrorStringBecomesAFixedText) {
  NullStringRuntime runtime;
  EXPECT_EQ(cuda_error_string(runtime, kCudaErrorUnknown), "unrecognized CUDA error");
  EXPECT_EQ(cuda_status_error(runtime, kCudaErrorUnknown, "cudaGetDevice").message(),
            "cudaGetDevice failed: unrecognized CUDA error (CUDA error 999)");
}

}  // namespace
}  // namespace devplan
