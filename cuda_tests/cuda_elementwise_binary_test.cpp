// cuda_elementwise_binary on real GPUs: the broadcasting add and mul give the host kernel's bits
// (a NaN result as any NaN: the GPU returns its canonical NaN) for every dtype, with random
// values, subnormals included, and misplaced memory is refused before launch.
#include <gtest/gtest.h>
#include <runtime_ext/cuda/cuda_allocator.h>
#include <runtime_ext/cuda/cuda_elementwise_binary.h>
#include <runtime_ext/cuda/real_cuda_runtime.h>
#include <runtime_ext/executor/kernels/builtin_kernels.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "cuda_test.h"

namespace devplan::cuda_testing {
namespace {

class CudaElementwiseBinaryTest : public CudaTest {
 protected:
  CudaAllocator allocator_{real_cuda_runtime()};

  // A tensor of `dtype` and `sizes` over `bytes`, on the host or (a device copy) on cuda:device.
  Tensor make(ScalarType dtype, const std::vector<int32_t>& sizes, std::vector<uint8_t>& bytes,
              int device) {
    Tensor t;
    t.dtype = dtype;
    t.sizes = sizes;
    t.nbytes = bytes.size();
    if (device < 0) {
      t.data = bytes.data();
      t.device = Device::cpu();
      return t;
    }
    Result<void*> p = allocator_.allocate(std::max<size_t>(bytes.size(), 1), device);
    EXPECT_TRUE(p.ok());
    t.data = p.ok() ? *p : nullptr;
    t.device = Device::cuda(device);
    EXPECT_TRUE(allocator_.copy_host_to_device(t.data, bytes.data(), bytes.size(), device).ok());
    return t;
  }

  // Random bytes for `n` elements of `dtype`, with subnormal, zero and large floats mixed in.
  static std::vector<uint8_t> random_bytes(ScalarType dtype, size_t n, std::mt19937_64& rng) {
    std::vector<uint8_t> bytes(n * element_size(dtype));
    for (size_t i = 0; i < n; ++i) {
      const uint64_t bits = rng();
      if (dtype == ScalarType::Float) {
        float v = std::ldexp(static_cast<float>(static_cast<int32_t>(bits)) / 2147483648.0f,
                             static_cast<int>(bits >> 56) % 300 - 150);
        std::memcpy(&bytes[i * 4], &v, 4);
      } else if (dtype == ScalarType::Double) {
        double v = std::ldexp(static_cast<double>(static_cast<int64_t>(bits)) / 9.2e18,
                              static_cast<int>(bits >> 52) % 2200 - 1100);
        std::memcpy(&bytes[i * 8], &v, 8);
      } else {
        std::memcpy(&bytes[i * element_size(dtype)], &bits, element_size(dtype));
      }
    }
    return bytes;
  }
};

TEST_F(CudaElementwiseBinaryTest, EveryDtypeAndBroadcastGivesTheHostKernelsBits) {
  std::mt19937_64 rng(7);
  struct Shapes {
    std::vector<int32_t> a, b, out;
  };
  const Shapes shapes[] = {{{1000}, {1000}, {1000}},
                           {{4, 1, 3}, {5, 1}, {4, 5, 3}},
                           {{}, {7, 9}, {7, 9}},
                           {{3, 1}, {1, 300}, {3, 300}}};
  auto numel = [](const std::vector<int32_t>& s) {
    size_t n = 1;
    for (int32_t d : s) n *= static_cast<size_t>(d);
    return n;
  };
  for (ScalarType dtype :
       {ScalarType::Float, ScalarType::Double, ScalarType::Int, ScalarType::Long}) {
    for (ElementwiseBinaryOp op : {ElementwiseBinaryOp::Add, ElementwiseBinaryOp::Mul}) {
      for (const Shapes& s : shapes) {
        SCOPED_TRACE(scalar_type_name(dtype) + (op == ElementwiseBinaryOp::Add ? " add" : " mul"));
        std::vector<uint8_t> a = random_bytes(dtype, numel(s.a), rng);
        std::vector<uint8_t> b = random_bytes(dtype, numel(s.b), rng);
        std::vector<uint8_t> expected(numel(s.out) * element_size(dtype));
        std::vector<uint8_t> got(expected.size());
        // The host kernel's answer.
        EValue ha = EValue::from_tensor(make(dtype, s.a, a, -1));
        EValue hb = EValue::from_tensor(make(dtype, s.b, b, -1));
        EValue hout = EValue::from_tensor(make(dtype, s.out, expected, -1));
        EValue alpha = EValue::from_int(1);
        KernelContext ctx;
        std::vector<EValue*> args = op == ElementwiseBinaryOp::Add
                                        ? std::vector<EValue*>{&ha, &hb, &alpha, &hout}
                                        : std::vector<EValue*>{&ha, &hb, &hout};
        Error host = op == ElementwiseBinaryOp::Add
                         ? add_out_kernel(ctx, Span<EValue*>(args.data(), args.size()))
                         : mul_out_kernel(ctx, Span<EValue*>(args.data(), args.size()));
        ASSERT_TRUE(host.ok()) << host;
        // The GPU's.
        const Tensor da = make(dtype, s.a, a, 0);
        const Tensor db = make(dtype, s.b, b, 0);
        const Tensor dout = make(dtype, s.out, got, 0);
        Error e = cuda_elementwise_binary(op, da, db, dout, 0);
        ASSERT_TRUE(e.ok()) << e;
        ASSERT_TRUE(allocator_.copy_device_to_host(got.data(), dout.data, got.size(), 0).ok());
        const size_t size = element_size(dtype);
        for (size_t i = 0; i < numel(s.out); ++i) {
          if (dtype == ScalarType::Float) {
            float x, y;
            std::memcpy(&x, &expected[i * size], 4);
            std::memcpy(&y, &got[i * size], 4);
            if (std::isnan(x) && std::isnan(y)) continue;
          } else if (dtype == ScalarType::Double) {
            double x, y;
            std::memcpy(&x, &expected[i * size], 8);
            std::memcpy(&y, &got[i * size], 8);
            if (std::isnan(x) && std::isnan(y)) continue;
          }
          ASSERT_EQ(std::memcmp(&expected[i * size], &got[i * size], size), 0) << "element " << i;
        }
        for (const Tensor* t : {&da, &db, &dout}) allocator_.deallocate(t->data, 0);
      }
    }
  }
}

TEST_F(CudaElementwiseBinaryTest, HostMemoryIsRefusedBeforeLaunch) {
  std::vector<uint8_t> bytes(16);
  const Tensor device_a = make(ScalarType::Float, {4}, bytes, 0);
  Tensor host_out = make(ScalarType::Float, {4}, bytes, -1);
  Error e = cuda_elementwise_binary(ElementwiseBinaryOp::Add, device_a, device_a, host_out, 0);
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(e.message().rfind("cuda_elementwise_binary: output out is not memory on cuda:0", 0), 0u)
      << e.message();
  allocator_.deallocate(device_a.data, 0);
}

}  // namespace
}  // namespace devplan::cuda_testing
