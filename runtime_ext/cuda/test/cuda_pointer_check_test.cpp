#include <gtest/gtest.h>
#include <runtime_ext/cuda/cuda_pointer_check.h>

#include "fake_cuda_runtime.h"

namespace devplan {
namespace {

using testing::FakeCudaRuntime;

class PointerCheckTest : public ::testing::Test {
 protected:
  void* allocate_on(int device, size_t nbytes) {
    fake_.set_current_device(device);
    void* p = nullptr;
    EXPECT_EQ(fake_.malloc(&p, nbytes), kCudaSuccess);
    fake_.set_current_device(0);
    return p;
  }
  FakeCudaRuntime fake_{2};
};

TEST_F(PointerCheckTest, MemoryOfTheDeviceIsAccepted) {
  void* p = allocate_on(1, 64);
  EXPECT_TRUE(check_cuda_device_pointer(fake_, p, 1, "input a").ok());
  EXPECT_TRUE(check_cuda_device_pointer(fake_, static_cast<char*>(p) + 63, 1, "input a").ok());
  EXPECT_EQ(fake_.free(p), kCudaSuccess);
}

TEST_F(PointerCheckTest, AnotherDevicesMemoryIsRejectedNamingBoth) {
  void* p = allocate_on(0, 64);
  Error error = check_cuda_device_pointer(fake_, p, 1, "output out");
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(error.message(), "output out is not memory on cuda:1: it is device memory on cuda:0");
  EXPECT_EQ(fake_.free(p), kCudaSuccess);
}

// Memory of a higher device index than the one asked for is refused too (the check is
// equality, not an ordering).
TEST_F(PointerCheckTest, AHigherDevicesMemoryIsRejected) {
  void* p = allocate_on(1, 64);
  Error error = check_cuda_device_pointer(fake_, p, 0, "input a");
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(error.message(), "input a is not memory on cuda:0: it is device memory on cuda:1");
  EXPECT_EQ(fake_.free(p), kCudaSuccess);
}

TEST_F(PointerCheckTest, HostMemoryAndNullAreRejected) {
  int host = 0;
  Error error = check_cuda_device_pointer(fake_, &host, 0, "input b");
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(error.message(), "input b is not memory on cuda:0: it is unregistered host memory");
  fake_.clear_calls();
  Error null_error = check_cuda_device_pointer(fake_, nullptr, 0, "input a");
  EXPECT_EQ(null_error.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(null_error.message(), "input a is not memory on cuda:0: it is null");
  EXPECT_TRUE(fake_.calls().empty());
}

TEST_F(PointerCheckTest, FailingQueryIsMapped) {
  fake_.pointer_attributes_status = kCudaErrorInvalidValue;
  int host = 0;
  Error error = check_cuda_device_pointer(fake_, &host, 0, "input a");
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(error.message(),
            "cudaPointerGetAttributes for input a failed: invalid argument (CUDA error 1)");
}

class FixedAttributesRuntime : public FakeCudaRuntime {
 public:
  int pointer_get_attributes(CudaPointerAttributes* attributes, const void*) override {
    *attributes = fixed;
    return kCudaSuccess;
  }
  CudaPointerAttributes fixed;
};

TEST(PointerCheckTypesTest, ManagedMemoryIsAcceptedPinnedHostMemoryIsNot) {
  FixedAttributesRuntime runtime;
  int object = 0;
  runtime.fixed = CudaPointerAttributes{CudaMemoryType::Managed, 0};
  EXPECT_TRUE(check_cuda_device_pointer(runtime, &object, 1, "input a").ok());
  runtime.fixed = CudaPointerAttributes{CudaMemoryType::Host, 0};
  EXPECT_EQ(check_cuda_device_pointer(runtime, &object, 0, "input a").message(),
            "input a is not memory on cuda:0: it is page-locked host memory");
}

}  // namespace
}  // namespace devplan
