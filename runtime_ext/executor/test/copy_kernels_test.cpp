#include <runtime_ext/executor/kernels/builtin_kernels.h>

#include <fixtures/leak_checked_test.h>
#include <gtest/gtest.h>

#include "host_tensors.h"

namespace devplan {
namespace {

using testing::HostTensor;

// A device tensor of `n` floats in memory from the test's TrackingDeviceAllocator.
class CopyKernelsTest : public LeakCheckedTest {
 protected:
  std::vector<int32_t> indices_ = {4, 5, 5};
  std::vector<std::pair<void*, DeviceIndex>> allocations_;

  EValue device_tensor(std::vector<int32_t> sizes, size_t n, DeviceIndex index = 0) {
    Result<void*> p = tracking().allocate(n * sizeof(float), index, 16);
    EXPECT_TRUE(p.ok());
    allocations_.emplace_back(*p, index);
    Tensor t;
    t.dtype = ScalarType::Float;
    t.sizes = std::move(sizes);
    t.data = *p;
    t.nbytes = n * sizeof(float);
    t.device = Device::cuda(index);
    return EValue::from_tensor(t);
  }
  void TearDown() override {
    for (auto& [p, i] : allocations_) tracking().deallocate(p, i);
    LeakCheckedTest::TearDown();
  }
  KernelContext ctx(const char* op) {
    KernelContext c;
    c.op_name = op;
    c.value_indices = Span<const int32_t>(indices_.data(), indices_.size());
    c.allocators = &DeviceAllocatorRegistry::global();
    return c;
  }
  Error h2d(EValue& self, EValue& out) {
    KernelContext c = ctx("et_copy::_h2d_copy.out");
    EValue* args[] = {&self, &out, &out};
    return h2d_copy_kernel(c, Span<EValue*>(args, 3));
  }
  Error d2h(EValue& self, EValue& out) {
    KernelContext c = ctx("et_copy::_d2h_copy.out");
    EValue* args[] = {&self, &out, &out};
    return d2h_copy_kernel(c, Span<EValue*>(args, 3));
  }
};

TEST_F(CopyKernelsTest, RoundTripThroughTheDevice) {
  HostTensor<float> host({2, 2}, {1, 2, 3, 4}), back({2, 2}, {0, 0, 0, 0});
  EValue dev = device_tensor({2, 2}, 4, 1);
  ASSERT_TRUE(h2d(host.value, dev).ok());
  ASSERT_TRUE(d2h(dev, back.value).ok());
  EXPECT_EQ(back.data, (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(tracking().stats(1).host_to_device_copies, 1u);
  EXPECT_EQ(tracking().stats(1).device_to_host_copies, 1u);
  EXPECT_EQ(tracking().stats(1).host_to_device_bytes, 16u);
}

TEST_F(CopyKernelsTest, WrongDirectionIsAnError) {
  HostTensor<float> host({2}, {1, 2});
  EValue dev = device_tensor({2}, 2);
  Error e = h2d(dev, host.value);
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(e.message(), "et_copy::_h2d_copy.out: value 4: self must be on the CPU, found cuda:0");
  e = d2h(host.value, dev);
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(e.message(), "et_copy::_d2h_copy.out: value 5: out must be on the CPU, found cuda:0");
  HostTensor<float> other({2}, {0, 0});
  e = h2d(host.value, other.value);
  EXPECT_EQ(e.message(), "et_copy::_h2d_copy.out: value 5: out must be on a device, found cpu:0");
  EXPECT_EQ(tracking().stats(0).host_to_device_copies, 0u);
}

TEST_F(CopyKernelsTest, DtypeAndSizeMustMatch) {
  HostTensor<int32_t> ints({2}, {1, 2});
  EValue dev = device_tensor({2}, 2);
  Error e = h2d(ints.value, dev);
  EXPECT_EQ(e.code(), ErrorCode::InvalidType);
  EXPECT_EQ(e.message(),
            "et_copy::_h2d_copy.out: value 5: dtype float32 differs from self's int32");
  HostTensor<float> big({4}, {1, 2, 3, 4});
  e = h2d(big.value, dev);
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(e.message(),
            "et_copy::_h2d_copy.out: value 5: out (float32[2] on cuda:0, 8 bytes) does not "
            "match self (float32[4] on cpu:0, 16 bytes)");
  EXPECT_EQ(tracking().stats(0).host_to_device_copies, 0u);
}

TEST_F(CopyKernelsTest, ZeroSizeCopiesNothing) {
  HostTensor<float> host({0}, {});
  Tensor t;
  t.sizes = {0};
  t.device = Device::cuda(0);
  EValue dev = EValue::from_tensor(t);
  tracking().fail_copies(CopyDirection::Both);  // would fail if a copy were attempted
  EXPECT_TRUE(h2d(host.value, dev).ok());
  EXPECT_TRUE(d2h(dev, host.value).ok());
  EXPECT_EQ(tracking().stats(0).host_to_device_copies, 0u);
}

TEST_F(CopyKernelsTest, MissingAllocatorIsNotFound) {
  HostTensor<float> host({2}, {1, 2});
  EValue dev = device_tensor({2}, 2);
  ScopedDeviceAllocator none(DeviceType::CUDA, nullptr);
  Error e = h2d(host.value, dev);
  EXPECT_EQ(e.code(), ErrorCode::NotFound);
  EXPECT_EQ(e.message(), "et_copy::_h2d_copy.out: no device allocator registered for cuda:0");
}

TEST_F(CopyKernelsTest, FailingCopyIsReturned) {
  HostTensor<float> host({2}, {1, 2});
  EValue dev = device_tensor({2}, 2);
  tracking().fail_copies(CopyDirection::HostToDevice);
  Error e = h2d(host.value, dev);
  EXPECT_EQ(e.code(), ErrorCode::Internal);  // the tracking allocator's injected copy fault
  EXPECT_EQ(e.message().rfind("et_copy::_h2d_copy.out on cuda:0: ", 0), 0u) << e.message();
  EXPECT_EQ(tracking().stats(0).host_to_device_copies, 0u);
}

TEST_F(CopyKernelsTest, ArgumentCountIsTwoOrThree) {
  HostTensor<float> host({2}, {1, 2}), back({2}, {0, 0});
  EValue dev = device_tensor({2}, 2);
  KernelContext c = ctx("et_copy::_h2d_copy.out");
  EValue* two[] = {&host.value, &dev};
  Error e = h2d_copy_kernel(c, Span<EValue*>(two, 2));
  ASSERT_TRUE(e.ok()) << e;
  EXPECT_EQ(tracking().stats(0).host_to_device_copies, 1u);
  EValue* four[] = {&host.value, &dev, &dev, &dev};
  e = h2d_copy_kernel(c, Span<EValue*>(four, 4));
  EXPECT_EQ(e.code(), ErrorCode::InvalidProgram);
  EXPECT_EQ(e.message(), "et_copy::_h2d_copy.out: expected 3 arguments, got 4");
  EValue* one[] = {&host.value};
  e = h2d_copy_kernel(c, Span<EValue*>(one, 1));
  EXPECT_EQ(e.code(), ErrorCode::InvalidProgram);
  EXPECT_EQ(e.message(), "et_copy::_h2d_copy.out: expected 3 arguments, got 1");
  EXPECT_EQ(tracking().stats(0).host_to_device_copies, 1u);
  ASSERT_TRUE(d2h(dev, back.value).ok());
  EXPECT_EQ(back.data, (std::vector<float>{1, 2}));
}

TEST_F(CopyKernelsTest, DeviceToHostNeedsItsSelfOnADevice) {
  HostTensor<float> host({2}, {1, 2}), host2({2}, {0, 0});
  Error e = d2h(host.value, host2.value);
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(e.message(), "et_copy::_d2h_copy.out: value 4: self must be on a device, found cpu:0");
  EXPECT_EQ(host2.data, (std::vector<float>{0, 0}));
}

// A returned value that is its own EValue receives the out tensor, in both directions.
TEST_F(CopyKernelsTest, ADistinctReturnedValueReceivesTheOutTensor) {
  HostTensor<float> host({2}, {5, 6}), back({2}, {0, 0});
  EValue dev = device_tensor({2}, 2, 1);
  EValue returned;
  KernelContext c = ctx("et_copy::_h2d_copy.out");
  EValue* to_device[] = {&host.value, &dev, &returned};
  ASSERT_TRUE(h2d_copy_kernel(c, Span<EValue*>(to_device, 3)).ok());
  ASSERT_TRUE(returned.is_tensor());
  EXPECT_EQ(returned.tensor.data, dev.tensor.data);
  EXPECT_EQ(returned.tensor.device, Device::cuda(1));
  EValue returned_back;
  KernelContext cb = ctx("et_copy::_d2h_copy.out");
  EValue* to_host[] = {&dev, &back.value, &returned_back};
  ASSERT_TRUE(d2h_copy_kernel(cb, Span<EValue*>(to_host, 3)).ok());
  EXPECT_EQ(back.data, (std::vector<float>{5, 6}));
  ASSERT_TRUE(returned_back.is_tensor());
  EXPECT_EQ(returned_back.tensor.data, back.value.tensor.data);
}

}  // namespace
}  // namespace devplan
