// SimulatedDeviceBackend: its argument checks, the op named by a delegate's processed bytes, and
// a run through a TrackingDeviceAllocator's copies.
#include <mocks/simulated_device_backend.h>

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include <mocks/tracking_device_allocator.h>

namespace devplan {
namespace {

std::vector<uint8_t> bytes(const std::string& text) {
  return std::vector<uint8_t>(text.begin(), text.end());
}

Tensor tensor(ScalarType dtype, std::vector<int32_t> sizes, Device device, uint64_t nbytes,
              void* data = nullptr) {
  Tensor t;
  t.dtype = dtype;
  t.sizes = std::move(sizes);
  t.device = device;
  t.nbytes = nbytes;
  t.data = data;
  return t;
}

Result<SimulatedDeviceBackend::Op> op_of(const std::vector<uint8_t>& processed) {
  return elementwise_op_from_processed(Span<const uint8_t>(processed.data(), processed.size()),
                                       "d");
}

class SimulatedDeviceBackendTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(registry_.register_allocator(&cuda_).ok()); }
  void TearDown() override {
    EXPECT_FALSE(cuda_.has_misuse()) << cuda_.misuse_report();
    EXPECT_FALSE(cuda_.has_leaks()) << cuda_.leak_report();
  }

  // Executes with (a, b, out) as values 4, 5, 6.
  Error execute(SimulatedDeviceBackend& backend, DelegateHandle* handle, std::vector<EValue*> args,
                const DeviceAllocatorRegistry* allocators) {
    BackendContext ctx{"forward", SimulatedDeviceBackend::kAddBackendId,
                       Span<const int32_t>(indices_.data(), indices_.size()), allocators};
    return backend.execute(handle, ctx, Span<EValue*>(args.data(), args.size()));
  }
  Error execute(std::vector<EValue*> args) {
    return execute(add_, nullptr, std::move(args), &registry_);
  }
  EValue float_2x2(Device device) {
    return EValue::from_tensor(tensor(ScalarType::Float, {2, 2}, device, 16));
  }
  // A float[4] holding `values` in a block of cuda:`index`, freed by TearDown's owner.
  EValue device_floats(const std::vector<float>& values, DeviceIndex index) {
    const size_t n = values.size() * sizeof(float);
    Result<void*> p = cuda_.allocate(n, index);
    EXPECT_TRUE(p.ok()) << p.error();
    if (!p.ok()) return EValue();
    blocks_.push_back({*p, index});
    EXPECT_TRUE(cuda_.copy_host_to_device(*p, values.data(), n, index).ok());
    return EValue::from_tensor(tensor(ScalarType::Float, {static_cast<int32_t>(values.size())},
                                      Device::cuda(index), n, *p));
  }
  std::vector<float> read_floats(const EValue& v) {
    std::vector<float> out(v.tensor.nbytes / sizeof(float));
    Error err = cuda_.copy_device_to_host(out.data(), v.tensor.data, v.tensor.nbytes,
                                          v.tensor.device.index);
    EXPECT_TRUE(err.ok()) << err;
    return out;
  }
  void free_blocks() {
    for (const auto& block : blocks_) cuda_.deallocate(block.first, block.second);
    blocks_.clear();
  }

  TrackingDeviceAllocator cuda_;
  DeviceAllocatorRegistry registry_;
  SimulatedDeviceBackend add_{SimulatedDeviceBackend::Op::Add};
  std::vector<int32_t> indices_ = {4, 5, 6};
  std::vector<std::pair<void*, DeviceIndex>> blocks_;
};

TEST_F(SimulatedDeviceBackendTest, TwoArgumentsAreInvalidProgram) {
  EValue a = float_2x2(Device::cuda(0)), b = float_2x2(Device::cuda(0));
  Error error = execute({&a, &b});
  EXPECT_EQ(error.code(), ErrorCode::InvalidProgram);
  EXPECT_EQ(error.message(), "DeviceAddBackend: expected 3 arguments (a, b, out), got 2");
  EXPECT_EQ(add_.executions(), 0u);
}

TEST_F(SimulatedDeviceBackendTest, FourArgumentsAreInvalidProgram) {
  EValue a = float_2x2(Device::cuda(0)), b = float_2x2(Device::cuda(0));
  EValue out = float_2x2(Device::cuda(0)), extra = float_2x2(Device::cuda(0));
  Error error = execute({&a, &b, &out, &extra});
  EXPECT_EQ(error.code(), ErrorCode::InvalidProgram);
  EXPECT_EQ(error.message(), "DeviceAddBackend: expected 3 arguments (a, b, out), got 4");
  EXPECT_EQ(add_.executions(), 0u);
}

// All three in host memory (a legacy program): the host kernel runs in place, and its errors
// say so, naming the op.
TEST_F(SimulatedDeviceBackendTest, LegacyHostTensorsRunTheHostKernelNamedAsSuch) {
  std::vector<float> a_data = {1, 2}, b_data = {10, 20}, out_data = {0, 0};
  EValue a = EValue::from_tensor(tensor(ScalarType::Float, {2}, Device::cpu(), 8, a_data.data()));
  EValue b = EValue::from_tensor(tensor(ScalarType::Float, {2}, Device::cpu(), 8, b_data.data()));
  EValue out =
      EValue::from_tensor(tensor(ScalarType::Float, {2}, Device::cpu(), 8, out_data.data()));
  ASSERT_TRUE(execute({&a, &b, &out}).ok());
  EXPECT_EQ(out_data, (std::vector<float>{11, 22}));
  SimulatedDeviceBackend mul(SimulatedDeviceBackend::Op::Mul);
  ASSERT_TRUE(execute(mul, nullptr, {&a, &b, &out}, &registry_).ok());
  EXPECT_EQ(out_data, (std::vector<float>{10, 40}));
  std::vector<int32_t> ints = {1, 2};
  EValue wrong = EValue::from_tensor(tensor(ScalarType::Int, {2}, Device::cpu(), 8, ints.data()));
  Error error = execute({&a, &wrong, &out});
  EXPECT_EQ(error.code(), ErrorCode::InvalidType);
  EXPECT_EQ(error.message().rfind("DeviceAddBackend (add, host memory): ", 0), 0u)
      << error.message();
  error = execute(mul, nullptr, {&a, &wrong, &out}, &registry_);
  EXPECT_EQ(error.message().rfind("DeviceAddBackend (mul, host memory): ", 0), 0u)
      << error.message();
  EXPECT_EQ(cuda_.allocate_calls(), 0u);
}

TEST_F(SimulatedDeviceBackendTest, NonTensorIsInvalidTypeNamedByValueIndex) {
  EValue a = float_2x2(Device::cuda(0)), b = EValue::from_int(1), out = float_2x2(Device::cuda(0));
  Error error = execute({&a, &b, &out});
  EXPECT_EQ(error.code(), ErrorCode::InvalidType);
  EXPECT_EQ(error.message(), "DeviceAddBackend: value 5 is Int, not a Tensor");
}

TEST_F(SimulatedDeviceBackendTest, NonTensorWithoutValueIndicesIsNamedByArgumentPosition) {
  indices_.clear();
  EValue a = float_2x2(Device::cuda(0)), b = EValue::from_int(1), out = float_2x2(Device::cuda(0));
  Error error = execute({&a, &b, &out});
  EXPECT_EQ(error.code(), ErrorCode::InvalidType);
  EXPECT_EQ(error.message(), "DeviceAddBackend: argument 1 is Int, not a Tensor");
}

TEST_F(SimulatedDeviceBackendTest, OneHostTensorAmongDeviceTensorsIsInvalidArgument) {
  EValue a = float_2x2(Device::cuda(0)), b = float_2x2(Device::cpu()),
         out = float_2x2(Device::cuda(0));
  Error error = execute({&a, &b, &out});
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(error.message(),
            "DeviceAddBackend: value 5 is on cpu:0 and the others are not; this backend runs on "
            "one device (or, for a legacy program, all in host memory)");
  EXPECT_EQ(add_.executions(), 0u);
}

TEST_F(SimulatedDeviceBackendTest, TensorOnAnotherDeviceIndexIsInvalidArgument) {
  EValue a = float_2x2(Device::cuda(1)), b = float_2x2(Device::cuda(0)),
         out = float_2x2(Device::cuda(1));
  Error error = execute({&a, &b, &out});
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(error.message(), "DeviceAddBackend: value 5 is on cuda:0, the others on cuda:1");
}

TEST_F(SimulatedDeviceBackendTest, NoAllocatorRegistryIsNotFoundNamingTheDevice) {
  EValue a = float_2x2(Device::cuda(1)), b = float_2x2(Device::cuda(1)),
         out = float_2x2(Device::cuda(1));
  Error error = execute(add_, nullptr, {&a, &b, &out}, nullptr);
  EXPECT_EQ(error.code(), ErrorCode::NotFound);
  EXPECT_EQ(error.message(), "DeviceAddBackend: no device allocator registered for cuda:1");
  EXPECT_EQ(add_.executions(), 0u);
}

TEST_F(SimulatedDeviceBackendTest, FromProcessedWithoutItsHandleIsDelegateInvalidHandle) {
  SimulatedDeviceBackend from_processed(SimulatedDeviceBackend::Op::FromProcessed);
  EValue a = float_2x2(Device::cuda(0)), b = float_2x2(Device::cuda(0)),
         out = float_2x2(Device::cuda(0));
  Error error = execute(from_processed, nullptr, {&a, &b, &out}, &registry_);
  EXPECT_EQ(error.code(), ErrorCode::DelegateInvalidHandle);
  EXPECT_EQ(error.message(), "DeviceAddBackend: not initialised by this backend");
  EXPECT_EQ(from_processed.executions(), 0u);
}

TEST(ElementwiseOpFromProcessedTest, AddAndMulAreTheOnlyNames) {
  Result<SimulatedDeviceBackend::Op> add = op_of(bytes("add"));
  ASSERT_TRUE(add.ok()) << add.error();
  EXPECT_EQ(*add, SimulatedDeviceBackend::Op::Add);
  Result<SimulatedDeviceBackend::Op> mul = op_of(bytes("mul"));
  ASSERT_TRUE(mul.ok()) << mul.error();
  EXPECT_EQ(*mul, SimulatedDeviceBackend::Op::Mul);

  Result<SimulatedDeviceBackend::Op> padded = op_of(bytes("add "));
  ASSERT_FALSE(padded.ok());
  EXPECT_EQ(padded.code(), ErrorCode::InvalidProgram);
  EXPECT_EQ(padded.error().message(),
            "d: processed data names no elementwise op (expected \"add\" or \"mul\", got \"add "
            "\")");
}

TEST(ElementwiseOpFromProcessedTest, ShowsAtMost32BytesOfTheProcessedData) {
  Result<SimulatedDeviceBackend::Op> at_limit = op_of(bytes(std::string(32, 'x')));
  ASSERT_FALSE(at_limit.ok());
  EXPECT_EQ(at_limit.error().message(),
            "d: processed data names no elementwise op (expected \"add\" or \"mul\", got \"" +
                std::string(32, 'x') + "\")");
  Result<SimulatedDeviceBackend::Op> past_limit = op_of(bytes(std::string(33, 'x')));
  ASSERT_FALSE(past_limit.ok());
  EXPECT_EQ(past_limit.code(), ErrorCode::InvalidProgram);
  EXPECT_EQ(past_limit.error().message(),
            "d: processed data names no elementwise op (expected \"add\" or \"mul\", got \"" +
                std::string(32, 'x') + "\")");
}

TEST(ElementwiseOpFromProcessedTest, ShowsUnprintableBytesAsQuestionMarks) {
  Result<SimulatedDeviceBackend::Op> control =
      op_of(bytes("\x01"
                  "dd"));
  ASSERT_FALSE(control.ok());
  EXPECT_EQ(control.error().message(),
            "d: processed data names no elementwise op (expected \"add\" or \"mul\", got "
            "\"?dd\")");
  // 0x7f is the first byte past the printable range, 0x7e ('~') the last inside it.
  Result<SimulatedDeviceBackend::Op> edges = op_of(bytes("\x7f~ \x1f"));
  ASSERT_FALSE(edges.ok());
  EXPECT_EQ(edges.error().message(),
            "d: processed data names no elementwise op (expected \"add\" or \"mul\", got \"?~ "
            "?\")");
}

TEST_F(SimulatedDeviceBackendTest, InitWithProcessedDataNamesTheDelegateInErrors) {
  SimulatedDeviceBackend from_processed(SimulatedDeviceBackend::Op::FromProcessed);
  const std::vector<uint8_t> processed = bytes("sub");
  DelegateInfo delegate;
  delegate.id = SimulatedDeviceBackend::kDevplanBackendId;
  delegate.processed = Span<const uint8_t>(processed.data(), processed.size());
  Result<std::unique_ptr<DelegateHandle>> handle =
      from_processed.init(delegate, BackendContext{"forward", delegate.id, {}, &registry_});
  ASSERT_FALSE(handle.ok());
  EXPECT_EQ(handle.code(), ErrorCode::InvalidProgram);
  EXPECT_EQ(handle.error().message(),
            "forward: delegate DevplanDeviceBackend: processed data names no elementwise op "
            "(expected \"add\" or \"mul\", got \"sub\")");
}

TEST_F(SimulatedDeviceBackendTest, AddsOnCuda2ThroughTheAllocatorsCopies) {
  EValue a = device_floats({1, 2, 3, 4}, 2), b = device_floats({10, 20, 30, 40}, 2),
         out = device_floats({0, 0, 0, 0}, 2);
  Error error = execute({&a, &b, &out});
  ASSERT_TRUE(error.ok()) << error;
  // a and b are read back once each; out is written, not read.
  EXPECT_EQ(cuda_.stats(2).device_to_host_copies, 2u);
  EXPECT_EQ(cuda_.stats(2).host_to_device_copies, 4u);  // three fills, then out
  EXPECT_EQ(add_.executions(), 1u);
  EXPECT_EQ(read_floats(out), (std::vector<float>{11, 22, 33, 44}));
  EXPECT_FALSE(cuda_.has_misuse()) << cuda_.misuse_report();
  free_blocks();
}

TEST_F(SimulatedDeviceBackendTest, MultipliesOnCuda2ThroughTheAllocatorsCopies) {
  SimulatedDeviceBackend mul(SimulatedDeviceBackend::Op::Mul);
  EValue a = device_floats({1, 2, 3, 4}, 2), b = device_floats({10, 20, 30, 40}, 2),
         out = device_floats({0, 0, 0, 0}, 2);
  Error error = execute(mul, nullptr, {&a, &b, &out}, &registry_);
  ASSERT_TRUE(error.ok()) << error;
  EXPECT_EQ(mul.executions(), 1u);
  EXPECT_EQ(add_.executions(), 0u);
  EXPECT_EQ(read_floats(out), (std::vector<float>{10, 40, 90, 160}));
  free_blocks();
}

TEST_F(SimulatedDeviceBackendTest, FromProcessedRunsTheOpItsHandleChose) {
  SimulatedDeviceBackend from_processed(SimulatedDeviceBackend::Op::FromProcessed);
  const std::vector<uint8_t> processed = bytes("mul");
  DelegateInfo delegate;
  delegate.id = SimulatedDeviceBackend::kDevplanBackendId;
  delegate.processed = Span<const uint8_t>(processed.data(), processed.size());
  Result<std::unique_ptr<DelegateHandle>> handle =
      from_processed.init(delegate, BackendContext{"forward", delegate.id, {}, &registry_});
  ASSERT_TRUE(handle.ok()) << handle.error();
  ASSERT_NE(handle->get(), nullptr);
  EValue a = device_floats({1, 2, 3, 4}, 1), b = device_floats({2, 2, 2, 2}, 1),
         out = device_floats({0, 0, 0, 0}, 1);
  Error error = execute(from_processed, handle->get(), {&a, &b, &out}, &registry_);
  ASSERT_TRUE(error.ok()) << error;
  EXPECT_EQ(from_processed.executions(), 1u);
  EXPECT_EQ(read_floats(out), (std::vector<float>{2, 4, 6, 8}));
  free_blocks();
}

}  // namespace
}  // namespace devplan

namespace devplan {
namespace {

// A device that computes itself (DeviceElementwise): what it takes it computes, what it leaves
// is staged through the allocator as on a simulated device, and its errors name the delegate.
TEST(SimulatedDeviceBackendOnDevice, TheDeviceComputesWhatItTakesAndTheRestIsStaged) {
  TrackingDeviceAllocator cuda;
  float a_host[2] = {1.5f, 2.0f}, b_host[2] = {4.0f, 0.5f}, out_host[2] = {};
  void* block[3];
  for (void*& p : block) p = *cuda.allocate(8, 0);
  ASSERT_TRUE(cuda.copy_host_to_device(block[0], a_host, 8, 0).ok());
  ASSERT_TRUE(cuda.copy_host_to_device(block[1], b_host, 8, 0).ok());
  Tensor t[3];
  for (int i = 0; i < 3; ++i) {
    t[i].dtype = ScalarType::Float;
    t[i].sizes = {2};
    t[i].device = Device::cuda(0);
    t[i].nbytes = 8;
    t[i].data = block[i];
  }
  const Tensor* tensors[3] = {&t[0], &t[1], &t[2]};
  const std::string names[3] = {"a", "b", "out"};
  std::vector<std::string> calls;
  std::optional<Error> answer;
  const SimulatedDeviceBackend::DeviceElementwise on_device =
      [&](SimulatedDeviceBackend::Op op, const Tensor& a, const Tensor&, const Tensor& out,
          Device device) -> std::optional<Error> {
    calls.push_back(std::string(op == SimulatedDeviceBackend::Op::Mul ? "mul" : "add") + " on " +
                    device.to_string() + " " + std::to_string(a.numel()) + " into " +
                    std::to_string(out.nbytes) + " B");
    return answer;
  };
  // Left to staging: the host kernel computes it.
  ASSERT_TRUE(run_simulated_elementwise(SimulatedDeviceBackend::Op::Mul, "d", &cuda, tensors, names,
                                        {}, &on_device)
                  .ok());
  ASSERT_TRUE(cuda.copy_device_to_host(out_host, block[2], 8, 0).ok());
  EXPECT_EQ(out_host[0], 6.0f);
  EXPECT_EQ(out_host[1], 1.0f);
  // Taken by the device: nothing staged, its error named by the delegate.
  answer = Error(ErrorCode::Internal, "kernel fault");
  const uint64_t copies_before = cuda.stats(0).device_to_host_copies;
  Error e = run_simulated_elementwise(SimulatedDeviceBackend::Op::Add, "d", &cuda, tensors, names,
                                      {}, &on_device);
  EXPECT_EQ(e.code(), ErrorCode::Internal);
  EXPECT_EQ(e.message(), "d: kernel fault");
  EXPECT_EQ(cuda.stats(0).device_to_host_copies, copies_before);
  EXPECT_EQ(calls,
            (std::vector<std::string>{"mul on cuda:0 2 into 8 B", "add on cuda:0 2 into 8 B"}));
  for (void* p : block) cuda.deallocate(p, 0);
}

}  // namespace
}  // namespace devplan
