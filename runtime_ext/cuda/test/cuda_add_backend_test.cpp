// CudaAddBackend's checks, all of which come before any CUDA call, so they need no GPU.
#include <gtest/gtest.h>
#include <runtime_ext/cuda/cuda_add_backend.h>

#include <cstring>
#include <vector>

namespace devplan {
namespace {

std::vector<uint8_t> bytes(const std::string& text) {
  return std::vector<uint8_t>(text.begin(), text.end());
}

Tensor tensor(ScalarType dtype, std::vector<int32_t> sizes, Device device, uint64_t nbytes) {
  Tensor t;
  t.dtype = dtype;
  t.sizes = std::move(sizes);
  t.device = device;
  t.nbytes = nbytes;
  return t;
}

class CudaAddBackendTest : public ::testing::Test {
 protected:
  // Executes with (a, b, out) as values 4, 5, 6.
  Error execute(DelegateHandle* handle, std::vector<EValue*> args) {
    BackendContext ctx{"forward", CudaAddBackend::kBackendId,
                       Span<const int32_t>(indices_.data(), indices_.size()), nullptr};
    return backend_.execute(handle, ctx, Span<EValue*>(args.data(), args.size()));
  }
  Result<std::unique_ptr<DelegateHandle>> init_with_target(const std::string& target) {
    spec_value_ = bytes(target);
    DelegateInfo delegate;
    delegate.id = CudaAddBackend::kBackendId;
    delegate.compile_specs.push_back(
        CompileSpecInfo{CudaAddBackend::kTargetDeviceSpec,
                        Span<const uint8_t>(spec_value_.data(), spec_value_.size())});
    return backend_.init(delegate,
                         BackendContext{"forward", CudaAddBackend::kBackendId, {}, nullptr});
  }
  EValue float_2x2(Device device) {
    return EValue::from_tensor(tensor(ScalarType::Float, {2, 2}, device, 16));
  }

  CudaAddBackend backend_;
  std::vector<int32_t> indices_ = {4, 5, 6};
  std::vector<uint8_t> spec_value_;
};

TEST_F(CudaAddBackendTest, InitWithoutTargetKeepsNoState) {
  DelegateInfo delegate;
  delegate.id = CudaAddBackend::kBackendId;
  Result<std::unique_ptr<DelegateHandle>> handle =
      backend_.init(delegate, BackendContext{"forward", delegate.id, {}, nullptr});
  ASSERT_TRUE(handle.ok()) << handle.error();
  EXPECT_EQ(handle->get(), nullptr);
}

TEST_F(CudaAddBackendTest, InitReadsTheTargetDevice) {
  Result<std::unique_ptr<DelegateHandle>> handle = init_with_target("cuda:1");
  ASSERT_TRUE(handle.ok()) << handle.error();
  ASSERT_NE(handle->get(), nullptr);
  // The handle pins the device: tensors on cuda:0 are refused.
  EValue a = float_2x2(Device::cuda(0)), b = float_2x2(Device::cuda(0)),
         out = float_2x2(Device::cuda(0));
  Error error = execute(handle->get(), {&a, &b, &out});
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(error.message(),
            "CudaAddBackend: value 4 is on cuda:0, but the delegate runs on cuda:1");
}

TEST_F(CudaAddBackendTest, InitRejectsABadOrNonCudaTarget) {
  Result<std::unique_ptr<DelegateHandle>> bad = init_with_target("gpu:0");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.code(), ErrorCode::InvalidProgram);
  EXPECT_EQ(bad.error().message(),
            "CudaAddBackend: compile spec target_device: invalid device 'gpu:0': unknown device "
            "type 'gpu' (expected cpu or cuda)");
  Result<std::unique_ptr<DelegateHandle>> cpu = init_with_target("cpu:0");
  ASSERT_FALSE(cpu.ok());
  EXPECT_EQ(cpu.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(cpu.error().message(),
            "CudaAddBackend: compile spec target_device is cpu:0; this backend runs on CUDA "
            "devices");
}

TEST_F(CudaAddBackendTest, WrongArgumentCountIsInvalidProgram) {
  EValue a = float_2x2(Device::cuda(0)), b = float_2x2(Device::cuda(0));
  Error error = execute(nullptr, {&a, &b});
  EXPECT_EQ(error.code(), ErrorCode::InvalidProgram);
  EXPECT_EQ(error.message(), "CudaAddBackend: expected 3 arguments (a, b, out), got 2");
}

TEST_F(CudaAddBackendTest, NonTensorIsInvalidType) {
  EValue a = float_2x2(Device::cuda(0)), b = EValue::from_int(1), out = float_2x2(Device::cuda(0));
  Error error = execute(nullptr, {&a, &b, &out});
  EXPECT_EQ(error.code(), ErrorCode::InvalidType);
  EXPECT_EQ(error.message(), "CudaAddBackend: value 5 is Int, not a Tensor");
}

TEST_F(CudaAddBackendTest, HostTensorIsInvalidArgument) {
  EValue a = float_2x2(Device::cuda(0)), b = float_2x2(Device::cuda(0)),
         out = float_2x2(Device::cpu());
  Error error = execute(nullptr, {&a, &b, &out});
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(error.message(),
            "CudaAddBackend: value 6 is on cpu:0; this backend runs on CUDA devices");
}

TEST_F(CudaAddBackendTest, TensorsOnDifferentDevicesAreInvalidArgument) {
  EValue a = float_2x2(Device::cuda(1)), b = float_2x2(Device::cuda(0)),
         out = float_2x2(Device::cuda(1));
  Error error = execute(nullptr, {&a, &b, &out});
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(error.message(),
            "CudaAddBackend: value 5 is on cuda:0, but the delegate runs on cuda:1");
}

TEST_F(CudaAddBackendTest, MixedDtypesAreInvalidArgument) {
  EValue a = float_2x2(Device::cuda(0)), b = float_2x2(Device::cuda(0));
  EValue out = EValue::from_tensor(tensor(ScalarType::Int, {2, 2}, Device::cuda(0), 16));
  Error error = execute(nullptr, {&a, &b, &out});
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(error.message(), "CudaAddBackend: value 6 is int32, value 4 is float32");
}

TEST_F(CudaAddBackendTest, DifferentShapesAreNotSupported) {
  EValue a = float_2x2(Device::cuda(0));
  EValue b = EValue::from_tensor(tensor(ScalarType::Float, {2}, Device::cuda(0), 8));
  EValue out = float_2x2(Device::cuda(0));
  Error error = execute(nullptr, {&a, &b, &out});
  EXPECT_EQ(error.code(), ErrorCode::NotSupported);
  EXPECT_EQ(error.message(),
            "CudaAddBackend: value 5 has shape [2], value 4 has [2, 2]; this backend does not "
            "broadcast");
}

TEST_F(CudaAddBackendTest, NbytesThatDisagreesWithTheShapeIsInvalidProgram) {
  EValue a = float_2x2(Device::cuda(0)), b = float_2x2(Device::cuda(0));
  EValue out = EValue::from_tensor(tensor(ScalarType::Float, {2, 2}, Device::cuda(0), 12));
  Error error = execute(nullptr, {&a, &b, &out});
  EXPECT_EQ(error.code(), ErrorCode::InvalidProgram);
  EXPECT_EQ(error.message(),
            "CudaAddBackend: value 6 float32[2, 2] on cuda:0 holds 12 bytes, not 16");
}

TEST_F(CudaAddBackendTest, UnsupportedDtypeIsNotSupported) {
  EValue a = EValue::from_tensor(tensor(ScalarType::Double, {2}, Device::cuda(0), 16));
  EValue b = a, out = a;
  Error error = execute(nullptr, {&a, &b, &out});
  EXPECT_EQ(error.code(), ErrorCode::NotSupported);
  EXPECT_EQ(error.message(),
            "CudaAddBackend: cuda_elementwise_add: dtype ScalarType(7) on cuda:0 is not "
            "supported (float32, int32 and int64 are)");
  EXPECT_EQ(backend_.executions(), 0u);
}

TEST_F(CudaAddBackendTest, ZeroElementsLaunchNothingAndSucceed) {
  EValue a = EValue::from_tensor(tensor(ScalarType::Float, {0, 2}, Device::cuda(3), 0));
  EValue b = a, out = a;
  EXPECT_TRUE(execute(nullptr, {&a, &b, &out}).ok());
  EXPECT_EQ(backend_.executions(), 1u);
}

TEST(CudaBackendRegistrationTest, RegistersOnceThenReportsAlreadyRegistered) {
  BackendRegistry registry;
  ASSERT_TRUE(register_cuda_backend(registry).ok());
  EXPECT_EQ(registry.find("DeviceAddBackend"), &process_cuda_add_backend());
  Error again = register_cuda_backend(registry);
  EXPECT_EQ(again.code(), ErrorCode::AlreadyRegistered);
  EXPECT_EQ(again.message(),
            "register_cuda_backend: backend DeviceAddBackend is already registered");
  EXPECT_EQ(registry.find("DeviceAddBackend"), &process_cuda_add_backend());
}

TEST(CudaBackendRegistrationTest, RegistersInTheGlobalRegistry) {
  ScopedBackend cleared(CudaAddBackend::kBackendId, nullptr);  // restores the entry afterwards
  ASSERT_TRUE(register_cuda_backend().ok());
  EXPECT_EQ(BackendRegistry::global().find("DeviceAddBackend"), &process_cuda_add_backend());
  EXPECT_EQ(register_cuda_backend().code(), ErrorCode::AlreadyRegistered);
}

}  // namespace
}  // namespace devplan
