// CudaAddBackend on real GPUs: a delegate call adds device tensors on their device.
#include <gtest/gtest.h>
#include <runtime_ext/cuda/cuda_add_backend.h>
#include <runtime_ext/cuda/cuda_allocator.h>
#include <runtime_ext/cuda/real_cuda_runtime.h>

#include <vector>

#include "cuda_test.h"

namespace devplan::cuda_testing {
namespace {

class CudaAddBackendGpuTest : public CudaTest {
 protected:
  EValue device_tensor(void* data, DeviceIndex device) {
    Tensor t;
    t.dtype = ScalarType::Float;
    t.sizes = {2, 2};
    t.nbytes = 16;
    t.data = data;
    t.device = Device::cuda(device);
    return EValue::from_tensor(t);
  }
  Error run(DelegateHandle* handle, EValue& a, EValue& b, EValue& out) {
    std::vector<EValue*> args = {&a, &b, &out};
    const std::vector<int32_t> indices = {2, 3, 4};
    BackendContext ctx{"forward", CudaAddBackend::kBackendId,
                       Span<const int32_t>(indices.data(), indices.size()), nullptr};
    return backend_.execute(handle, ctx, Span<EValue*>(args.data(), args.size()));
  }
  CudaAllocator allocator_{real_cuda_runtime()};
  CudaAddBackend backend_;
};

TEST_F(CudaAddBackendGpuTest, AddsOnEveryDevice) {
  const std::vector<float> a_host = {1.0f, 2.0f, 3.0f, 4.0f}, b_host = {10.0f, 20.0f, 30.0f, 40.0f};
  for (int d = 0; d < device_count(); ++d) {
    const DeviceIndex device = static_cast<DeviceIndex>(d);
    Result<void*> pa = allocator_.allocate(16, device);
    Result<void*> pb = allocator_.allocate(16, device);
    Result<void*> pout = allocator_.allocate(16, device);
    ASSERT_TRUE(pa.ok() && pb.ok() && pout.ok());
    ASSERT_TRUE(allocator_.copy_host_to_device(*pa, a_host.data(), 16, device).ok());
    ASSERT_TRUE(allocator_.copy_host_to_device(*pb, b_host.data(), 16, device).ok());
    EValue a = device_tensor(*pa, device), b = device_tensor(*pb, device),
           out = device_tensor(*pout, device);
    Error error = run(nullptr, a, b, out);
    ASSERT_TRUE(error.ok()) << error;
    std::vector<float> sum(4, 0.0f);
    ASSERT_TRUE(allocator_.copy_device_to_host(sum.data(), *pout, 16, device).ok());
    EXPECT_EQ(sum, (std::vector<float>{11.0f, 22.0f, 33.0f, 44.0f}));
    EXPECT_EQ(current_device(), 0);
    for (void* p : {*pa, *pb, *pout}) allocator_.deallocate(p, device);
  }
  EXPECT_EQ(backend_.executions(), static_cast<uint64_t>(device_count()));
}

TEST_F(CudaAddBackendGpuTest, HostMemoryLabelledAsDeviceMemoryIsRejected) {
  Result<void*> pa = allocator_.allocate(16, 0);
  Result<void*> pout = allocator_.allocate(16, 0);
  ASSERT_TRUE(pa.ok() && pout.ok());
  float host[4] = {0, 0, 0, 0};
  EValue a = device_tensor(*pa, 0), b = device_tensor(host, 0), out = device_tensor(*pout, 0);
  Error error = run(nullptr, a, b, out);
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(error.message(),
            "CudaAddBackend: cuda_elementwise_add: input b is not memory on cuda:0: it is "
            "unregistered host memory");
  EXPECT_EQ(backend_.executions(), 0u);
  allocator_.deallocate(*pa, 0);
  allocator_.deallocate(*pout, 0);
}

}  // namespace
}  // namespace devplan::cuda_testing
