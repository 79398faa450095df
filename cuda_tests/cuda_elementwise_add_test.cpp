// cuda_elementwise_add on real GPUs: exact results for float32 (a NaN result as any NaN), int32
// and int64 on every device, misplaced buffers rejected before launch.
#include <gtest/gtest.h>
#include <runtime_ext/cuda/cuda_allocator.h>
#include <runtime_ext/cuda/cuda_elementwise_add.h>
#include <runtime_ext/cuda/real_cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "cuda_test.h"

namespace devplan::cuda_testing {
namespace {

class CudaElementwiseAddTest : public CudaTest {
 protected:
  // Device copies of a, b and an output buffer on `device`; freed by the caller via release().
  struct Operands {
    void* a = nullptr;
    void* b = nullptr;
    void* out = nullptr;
  };
  template <typename T>
  Operands upload(const std::vector<T>& a, const std::vector<T>& b, DeviceIndex device) {
    Operands ops;
    const size_t bytes = a.size() * sizeof(T);
    Result<void*> pa = allocator_.allocate(bytes, device);
    Result<void*> pb = allocator_.allocate(bytes, device);
    Result<void*> pout = allocator_.allocate(bytes, device);
    EXPECT_TRUE(pa.ok() && pb.ok() && pout.ok());
    if (pa.ok()) ops.a = *pa;
    if (pb.ok()) ops.b = *pb;
    if (pout.ok()) ops.out = *pout;
    EXPECT_TRUE(allocator_.copy_host_to_device(ops.a, a.data(), bytes, device).ok());
    EXPECT_TRUE(allocator_.copy_host_to_device(ops.b, b.data(), bytes, device).ok());
    return ops;
  }
  void release(const Operands& ops, DeviceIndex device) {
    allocator_.deallocate(ops.a, device);
    allocator_.deallocate(ops.b, device);
    allocator_.deallocate(ops.out, device);
  }
  template <typename T>
  void check_add(const std::vector<T>& a, const std::vector<T>& b, const std::vector<T>& expected,
                 ScalarType dtype, DeviceIndex device) {
    Operands ops = upload(a, b, device);
    Error error = cuda_elementwise_add(ops.a, ops.b, ops.out, a.size(), dtype, device);
    ASSERT_TRUE(error.ok()) << error;
    std::vector<T> out(a.size());
    ASSERT_TRUE(
        allocator_.copy_device_to_host(out.data(), ops.out, a.size() * sizeof(T), device).ok());
    for (size_t i = 0; i < out.size(); ++i) {
      // A NaN is a value: the GPU returns its canonical NaN whatever the operands' payloads
      // (IEEE 754 leaves a NaN result's sign and payload open). Every other element must have
      // the reference bits (so -0.0 is not 0.0).
      if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(expected[i])) {
          ASSERT_TRUE(std::isnan(out[i])) << "element " << i << ": " << out[i];
          continue;
        }
      }
      // NOLINTNEXTLINE(bugprone-suspicious-memory-comparison)
      ASSERT_EQ(std::memcmp(&out[i], &expected[i], sizeof(T)), 0) << "element " << i;
    }
    release(ops, device);
  }
  CudaAllocator allocator_{real_cuda_runtime()};
};

TEST_F(CudaElementwiseAddTest, AddsEveryDtypeExactlyOnEveryDevice) {
  std::mt19937_64 rng(7);
  for (int d = 0; d < device_count(); ++d) {
    const DeviceIndex device = static_cast<DeviceIndex>(d);
    // 1 element, a partial block, and more elements than one grid covers (grid-stride loop).
    for (size_t n : {size_t{1}, size_t{257}, (size_t{1} << 20) + 3}) {
      SCOPED_TRACE("cuda:" + std::to_string(d) + ", n = " + std::to_string(n));
      std::vector<float> fa(n), fb(n), fsum(n);
      std::vector<int32_t> ia(n), ib(n), isum(n);
      std::vector<int64_t> la(n), lb(n), lsum(n);
      std::uniform_real_distribution<float> real(-1000.0f, 1000.0f);
      for (size_t i = 0; i < n; ++i) {
        fa[i] = real(rng);
        fb[i] = real(rng);
        fsum[i] = fa[i] + fb[i];
        ia[i] = static_cast<int32_t>(rng());
        ib[i] = static_cast<int32_t>(rng());
        isum[i] = static_cast<int32_t>(static_cast<uint32_t>(ia[i]) + static_cast<uint32_t>(ib[i]));
        la[i] = static_cast<int64_t>(rng());
        lb[i] = static_cast<int64_t>(rng());
        lsum[i] = static_cast<int64_t>(static_cast<uint64_t>(la[i]) + static_cast<uint64_t>(lb[i]));
      }
      check_add(fa, fb, fsum, ScalarType::Float, device);
      check_add(ia, ib, isum, ScalarType::Int, device);
      check_add(la, lb, lsum, ScalarType::Long, device);
      EXPECT_EQ(current_device(), 0);
    }
  }
  EXPECT_EQ(allocator_.deallocation_errors(), 0u) << allocator_.last_deallocation_error();
}

TEST_F(CudaElementwiseAddTest, NansAreNansAndSignedZerosKeepTheirSign) {
  const float inf = std::numeric_limits<float>::infinity();
  float nan_a, nan_b;
  const uint32_t payload_a = 0x7fc00123u, payload_b = 0xffc00456u;
  std::memcpy(&nan_a, &payload_a, sizeof(float));
  std::memcpy(&nan_b, &payload_b, sizeof(float));
  const std::vector<float> a = {nan_a, -0.0f, inf, inf, nan_a, 1.0f, -0.0f};
  const std::vector<float> b = {1.0f, -0.0f, -inf, inf, nan_b, nan_b, 0.0f};
  const std::vector<float> sum = {nan_a, -0.0f, std::nanf(""), inf, nan_a, nan_b, 0.0f};
  check_add(a, b, sum, ScalarType::Float, 0);
}

TEST_F(CudaElementwiseAddTest, IntegerOverflowWraps) {
  check_add<int32_t>({std::numeric_limits<int32_t>::max(), -1},
                     {1, std::numeric_limits<int32_t>::min()},
                     {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()},
                     ScalarType::Int, 0);
  check_add<int64_t>({std::numeric_limits<int64_t>::max()}, {2},
                     {std::numeric_limits<int64_t>::min() + 1}, ScalarType::Long, 0);
}

TEST_F(CudaElementwiseAddTest, OutputMayAliasAnInput) {
  std::vector<float> a = {1.5f, 2.5f, -3.0f}, b = {0.5f, 0.25f, 3.0f};
  Operands ops = upload(a, b, 0);
  ASSERT_TRUE(cuda_elementwise_add(ops.a, ops.b, ops.a, 3, ScalarType::Float, 0).ok());
  std::vector<float> out(3);
  ASSERT_TRUE(allocator_.copy_device_to_host(out.data(), ops.a, sizeof(float) * 3, 0).ok());
  EXPECT_EQ(out, (std::vector<float>{2.0f, 2.75f, 0.0f}));
  release(ops, 0);
}

TEST_F(CudaElementwiseAddTest, HostMemoryIsRejectedBeforeLaunch) {
  std::vector<float> a = {1.0f}, b = {2.0f};
  Operands ops = upload(a, b, 0);
  float host_out = 0.0f;
  Error error = cuda_elementwise_add(ops.a, ops.b, &host_out, 1, ScalarType::Float, 0);
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(
      error.message(),
      "cuda_elementwise_add: output out is not memory on cuda:0: it is unregistered host memory");
  Error null_input = cuda_elementwise_add(nullptr, ops.b, ops.out, 1, ScalarType::Float, 0);
  EXPECT_EQ(null_input.message(),
            "cuda_elementwise_add: input a is not memory on cuda:0: it is null");
  // The context is still healthy.
  EXPECT_TRUE(cuda_elementwise_add(ops.a, ops.b, ops.out, 1, ScalarType::Float, 0).ok());
  EXPECT_EQ(current_device(), 0);
  release(ops, 0);
}

TEST_F(CudaElementwiseAddTest, AnotherDevicesMemoryIsRejectedBeforeLaunch) {
  if (device_count() < 2) GTEST_SKIP() << "needs 2 CUDA devices, found " << device_count();
  std::vector<float> a = {1.0f}, b = {2.0f};
  Operands on0 = upload(a, b, 0);
  Error error = cuda_elementwise_add(on0.a, on0.b, on0.out, 1, ScalarType::Float, 1);
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(error.message(),
            "cuda_elementwise_add: input a is not memory on cuda:1: it is device memory on cuda:0");
  EXPECT_EQ(current_device(), 0);
  release(on0, 0);
}

TEST_F(CudaElementwiseAddTest, BadDeviceAndDtypeAreRejected) {
  std::vector<int32_t> a = {1}, b = {2};
  Operands ops = upload(a, b, 0);
  Error bad_device = cuda_elementwise_add(ops.a, ops.b, ops.out, 1, ScalarType::Int,
                                          static_cast<DeviceIndex>(device_count()));
  EXPECT_EQ(bad_device.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(
      bad_device.message().rfind(
          "cuda_elementwise_add: invalid device cuda:" + std::to_string(device_count()) + ": ", 0),
      0u)
      << bad_device;
  Error bad_dtype = cuda_elementwise_add(ops.a, ops.b, ops.out, 1, ScalarType::Short, 0);
  EXPECT_EQ(bad_dtype.code(), ErrorCode::NotSupported);
  int32_t out = -1;
  ASSERT_TRUE(cuda_elementwise_add(ops.a, ops.b, ops.out, 1, ScalarType::Int, 0).ok());
  ASSERT_TRUE(allocator_.copy_device_to_host(&out, ops.out, sizeof(out), 0).ok());
  EXPECT_EQ(out, 3);
  release(ops, 0);
}

}  // namespace
}  // namespace devplan::cuda_testing
