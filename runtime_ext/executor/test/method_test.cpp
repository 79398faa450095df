#include <runtime_ext/executor/method.h>

#include <fixtures/leak_checked_test.h>
#include <gtest/gtest.h>
#include <mocks/simulated_device_backend.h>
#include <runtime_ext/writer/method_builder.h>

#include <cstring>
#include <limits>
#include <memory>

#include "host_tensors.h"
#include "test_planned_memory.h"

namespace devplan {
namespace {

using testing::HostTensor;
using testing::TestPlannedMemory;

const TensorSpec kFloat4 = TensorSpec::of(ScalarType::Float, {2, 2});
const TensorSpec kFloat4Cuda0 = TensorSpec::of(ScalarType::Float, {2, 2}, Device::cuda(0));

class MethodTest : public LeakCheckedTest {
 protected:
  SimulatedDeviceBackend add_backend_{SimulatedDeviceBackend::Op::Add};
  ScopedBackend scoped_add_{SimulatedDeviceBackend::kAddBackendId, &add_backend_};

  // Loads `plan` over fresh test memory and keeps both alive for the test.
  Result<Method*> load(const MethodPlan& plan, MethodRuntime runtime = MethodRuntime()) {
    memory_ = std::make_unique<TestPlannedMemory>(plan, tracking());
    Result<std::unique_ptr<Method>> m =
        Method::load(plan, MemoryManager(nullptr, memory_->get()), runtime);
    if (!m.ok()) return m.error();
    method_ = std::move(m).value();
    return method_.get();
  }
  // Loads `plan` (a load failure is returned as Internal, naming it) and executes it once.
  Error load_and_execute(const MethodPlan& plan, MethodRuntime runtime = MethodRuntime()) {
    Result<Method*> m = load(plan, runtime);
    if (!m.ok()) return Error(ErrorCode::Internal, "did not load: " + m.error().message());
    return (*m)->execute();
  }
  void TearDown() override {
    method_.reset();
    memory_.reset();
    LeakCheckedTest::TearDown();
  }

  std::unique_ptr<TestPlannedMemory> memory_;
  std::unique_ptr<Method> method_;
};

// x = float[2, 2] planned in a 16-byte buffer on cuda:2, the method's input and output.
MethodPlan device_input_output_plan() {
  MethodBuilder b("forward");
  uint32_t dev = b.add_buffer(16, Device::cuda(2));
  int32_t x =
      b.add_planned_tensor(TensorSpec::of(ScalarType::Float, {2, 2}, Device::cuda(2)), dev, 0);
  b.set_inputs({x});
  b.set_outputs({x});
  return b.plan();
}

// add(a, b) on the CPU: a, b and out planned in one 48-byte buffer.
MethodPlan cpu_add_plan() {
  MethodBuilder m("forward");
  uint32_t buf = m.add_buffer(48);
  int32_t a = m.add_planned_tensor(TensorSpec::of(ScalarType::Float, {1}), buf, 0);
  int32_t b = m.add_planned_tensor(TensorSpec::of(ScalarType::Float, {1}), buf, 16);
  int32_t alpha = m.add_int(1);
  int32_t out = m.add_planned_tensor(TensorSpec::of(ScalarType::Float, {1}), buf, 32);
  m.add_kernel_call("aten::add", "out", {a, b, alpha, out, out});
  m.set_inputs({a, b});
  m.set_outputs({out});
  return m.plan();
}

// The reference device program: h2d(a), h2d(b), delegate add on cuda:0, d2h.
MethodPlan device_add_plan() {
  MethodBuilder m("forward");
  uint32_t host = m.add_buffer(32);
  uint32_t dev = m.add_buffer(48, Device::cuda(0));
  int32_t a = m.add_planned_tensor(kFloat4, host, 0);
  int32_t b = m.add_planned_tensor(kFloat4, host, 16);
  int32_t a_dev = m.add_planned_tensor(kFloat4Cuda0, dev, 0);
  int32_t b_dev = m.add_planned_tensor(kFloat4Cuda0, dev, 16);
  int32_t c_dev = m.add_planned_tensor(kFloat4Cuda0, dev, 32);
  int32_t out = m.add_planned_tensor(kFloat4, host, 0);
  int32_t add = m.add_delegate(SimulatedDeviceBackend::kAddBackendId, {});
  m.add_kernel_call("et_copy::_h2d_copy", "out", {a, a_dev, a_dev});
  m.add_kernel_call("et_copy::_h2d_copy", "out", {b, b_dev, b_dev});
  m.add_delegate_call(add, {a_dev, b_dev, c_dev});
  m.add_kernel_call("et_copy::_d2h_copy", "out", {c_dev, out, out});
  m.set_inputs({a, b});
  m.set_outputs({out});
  return m.plan();
}

TEST_F(MethodTest, CpuAddGivesThree) {
  MethodPlan plan = cpu_add_plan();
  Result<Method*> m = load(plan);
  ASSERT_TRUE(m.ok()) << m.error();
  HostTensor<float> a({1}, {1.0f}), b({1}, {2.0f});
  ASSERT_TRUE((*m)->set_input(0, a.value).ok());
  ASSERT_TRUE((*m)->set_input(1, b.value).ok());
  ASSERT_TRUE((*m)->execute().ok());
  float out = 0;
  ASSERT_TRUE((*m)->copy_output_to_host(0, &out, sizeof(out)).ok());
  EXPECT_EQ(out, 3.0f);
  EXPECT_EQ(tracking().allocate_calls(), 0u);  // CPU-only: no device allocator call
}

TEST_F(MethodTest, PlannedTensorsPointAtBufferBasePlusOffset) {
  MethodPlan plan = device_add_plan();
  Result<Method*> m = load(plan);
  ASSERT_TRUE(m.ok()) << m.error();
  HierarchicalAllocator* planned = memory_->get();
  const uint8_t* host = planned->buffer(0).data();
  const uint8_t* dev = planned->buffer(1).data();
  EXPECT_EQ((*m)->value(0).tensor.data, host);
  EXPECT_EQ((*m)->value(1).tensor.data, host + 16);
  EXPECT_EQ((*m)->value(2).tensor.data, dev);
  EXPECT_EQ((*m)->value(3).tensor.data, dev + 16);
  EXPECT_EQ((*m)->value(4).tensor.data, dev + 32);
  EXPECT_EQ((*m)->value(4).tensor.device, Device::cuda(0));
  EXPECT_EQ((*m)->value(5).tensor.data, host);
}

TEST_F(MethodTest, DeviceAddRunsWithCopiesOnTheSimulatedDevice) {
  MethodPlan plan = device_add_plan();
  Result<Method*> m = load(plan);
  ASSERT_TRUE(m.ok()) << m.error();
  HostTensor<float> a({2, 2}, {1, 2, 3, 4}), b({2, 2}, {10, 20, 30, 40});
  ASSERT_TRUE((*m)->set_input(0, a.value).ok());
  ASSERT_TRUE((*m)->set_input(1, b.value).ok());
  Error e = (*m)->execute();
  ASSERT_TRUE(e.ok()) << e;
  float out[4] = {};
  ASSERT_TRUE((*m)->copy_output_to_host(0, out, sizeof(out)).ok());
  EXPECT_EQ(std::vector<float>(out, out + 4), (std::vector<float>{11, 22, 33, 44}));
  EXPECT_EQ(add_backend_.executions(), 1u);
  // Two h2d copy kernels and the backend's write of its result; the backend's two reads and
  // the d2h kernel.
  EXPECT_EQ(tracking().stats(0).host_to_device_copies, 3u);
  EXPECT_EQ(tracking().stats(0).device_to_host_copies, 3u);
}

TEST_F(MethodTest, APlanWhoseTensorMemoryDisagreesWithItsBufferIsRefused) {
  MethodPlan plan = device_add_plan();
  plan.values[2].tensor.device = Device::cuda(1);
  Result<Method*> m = load(plan);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.code(), ErrorCode::InvalidProgram);
  EXPECT_EQ(m.error().message(),
            "method 'forward': value 2: tensor on cuda:1 planned in buffer 1 on cuda:0");
  // As the parser reads such a tag (ExecuTorch checks nothing): the bytes are the buffer's.
  plan.values[2].tensor.other_buffer_device = Device::cuda(0);
  m = load(plan);
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_EQ((*m)->value(2).tensor.device, Device::cuda(0));
}

TEST_F(MethodTest, TensorPastItsBufferIsRefused) {
  MethodPlan plan = device_add_plan();
  plan.values[4].tensor.offset = 40;
  Result<Method*> m = load(plan);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.code(), ErrorCode::InvalidProgram);
  EXPECT_EQ(m.error().message(),
            "method 'forward': value 4: bytes [40, 40+16) do not fit in planned buffer 1 of 48 "
            "bytes on cuda:0");
}

TEST_F(MethodTest, MemoryWithOtherDevicesOrCountIsRefused) {
  MethodPlan plan = device_add_plan();
  MethodPlan cpu = plan;
  cpu.buffer_devices[1] = Device::cpu();
  TestPlannedMemory memory(cpu, tracking());  // both buffers on the host
  Result<std::unique_ptr<Method>> m = Method::load(plan, MemoryManager(nullptr, memory.get()));
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(m.error().message(),
            "method 'forward': planned buffer 1 is on cpu:0 but the program places it on cuda:0");
  m = Method::load(plan, MemoryManager());
  EXPECT_EQ(m.error().message(),
            "method 'forward': planned memory has 0 buffers but the method plans 2");
}

TEST_F(MethodTest, MissingKernelLoadsButDoesNotExecute) {
  MethodBuilder b("forward");
  uint32_t buf = b.add_buffer(16);
  int32_t x = b.add_planned_tensor(TensorSpec::of(ScalarType::Float, {2}), buf, 0);
  int32_t y = b.add_planned_tensor(TensorSpec::of(ScalarType::Float, {2}), buf, 8);
  b.add_kernel_call("aten::mul", "out", {x, x, y, y});
  b.add_kernel_call("aten::sub", "out", {x, y, y});
  b.set_outputs({y});
  MethodPlan plan = b.plan();
  Result<Method*> m = load(plan);
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_EQ((*m)->missing_operators(), (std::vector<std::string>{"aten::sub.out"}));
  Error e = (*m)->execute();
  EXPECT_EQ(e.code(), ErrorCode::OperatorMissing);
  EXPECT_EQ(e.message(),
            "method 'forward': chain 0 instruction 1: operator aten::sub.out has no kernel");
}

TEST_F(MethodTest, MissingBackendLoadsButDoesNotExecute) {
  MethodPlan plan = device_add_plan();
  ScopedBackend hide(SimulatedDeviceBackend::kAddBackendId, nullptr);
  Result<Method*> m = load(plan);
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_EQ((*m)->missing_operators(), (std::vector<std::string>{"delegate DeviceAddBackend"}));
  Error e = (*m)->execute();
  EXPECT_EQ(e.code(), ErrorCode::OperatorMissing);
  EXPECT_EQ(e.message(),
            "method 'forward': chain 0 instruction 2: delegate 0 needs backend DeviceAddBackend, "
            "which is not registered");
}

TEST_F(MethodTest, HostKernelOnDeviceTensorNamesOperatorAndValue) {
  MethodBuilder b("forward");
  uint32_t dev = b.add_buffer(48, Device::cuda(0));
  int32_t x = b.add_planned_tensor(kFloat4Cuda0, dev, 0);
  int32_t alpha = b.add_int(1);
  int32_t y = b.add_planned_tensor(kFloat4Cuda0, dev, 16);
  b.add_kernel_call("aten::add", "out", {x, x, alpha, y, y});
  Error e = load_and_execute(b.plan());
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(e.message(),
            "method 'forward': chain 0 instruction 0: aten::add.out: value 0: tensor is on "
            "cuda:0; a host kernel cannot read device memory");
}

TEST_F(MethodTest, InitialValueOfDeviceTensorGoesThroughTheAllocator) {
  MethodBuilder b("forward");
  uint32_t dev = b.add_buffer(16, Device::cuda(0));
  std::vector<uint8_t> initial(16);
  const float values[4] = {1, 2, 3, 4};
  std::memcpy(initial.data(), values, 16);
  int32_t w = b.add_planned_tensor_with_initial_value(kFloat4Cuda0, dev, 0, initial);
  b.set_outputs({w});
  MethodPlan plan = b.plan();
  Result<Method*> m = load(plan);
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_EQ(tracking().stats(0).host_to_device_copies, 1u);
  EXPECT_EQ(tracking().stats(0).host_to_device_bytes, 16u);
  float out[4] = {};
  ASSERT_TRUE((*m)->copy_output_to_host(0, out, 16).ok());
  EXPECT_EQ(std::vector<float>(out, out + 4), (std::vector<float>{1, 2, 3, 4}));
}

// The smallest initial values: a 1-byte tensor gets its byte (host and device), a 0-byte one
// needs none and copies nothing.
TEST_F(MethodTest, OneByteAndEmptyInitialValuesAreLoaded) {
  MethodBuilder b("forward");
  const uint32_t host = b.add_buffer(16);
  const uint32_t dev = b.add_buffer(16, Device::cuda(0));
  const int32_t h =
      b.add_planned_tensor_with_initial_value(TensorSpec::of(ScalarType::Byte, {1}), host, 0, {42});
  const int32_t d = b.add_planned_tensor_with_initial_value(
      TensorSpec::of(ScalarType::Bool, {1}, Device::cuda(0)), dev, 0, {1});
  const int32_t e = b.add_planned_tensor_with_initial_value(
      TensorSpec::of(ScalarType::Float, {0}, Device::cuda(0)), dev, 8, {});
  b.set_outputs({h, d, e});
  MethodPlan plan = b.plan();
  Result<Method*> m = load(plan);
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_EQ(*static_cast<const uint8_t*>((*m)->value(h).tensor.data), 42);
  EXPECT_EQ(tracking().stats(0).host_to_device_copies, 1u);
  EXPECT_EQ(tracking().stats(0).host_to_device_bytes, 1u);
  uint8_t byte = 0;
  ASSERT_TRUE((*m)->copy_output_to_host(1, &byte, 1).ok());
  EXPECT_EQ(byte, 1);
}

TEST_F(MethodTest, RuntimeBoundInputGetsHostMemory) {
  MethodBuilder b("forward");
  int32_t x = b.add_runtime_tensor(TensorSpec::of(ScalarType::Int, {3}));
  int32_t y = b.add_runtime_tensor(TensorSpec::of(ScalarType::Int, {3}));
  b.add_kernel_call("aten::mul", "out", {x, x, y, y});
  b.set_inputs({x});
  b.set_outputs({y});
  MethodPlan plan = b.plan();
  Result<Method*> m = load(plan);
  ASSERT_TRUE(m.ok()) << m.error();
  HostTensor<int32_t> in({3}, {2, 3, -4});
  ASSERT_TRUE((*m)->set_input(0, in.value).ok());
  ASSERT_TRUE((*m)->execute().ok());
  int32_t out[3] = {};
  ASSERT_TRUE((*m)->copy_output_to_host(0, out, sizeof(out)).ok());
  EXPECT_EQ(std::vector<int32_t>(out, out + 3), (std::vector<int32_t>{4, 9, 16}));
}

TEST_F(MethodTest, RuntimeBoundDeviceTensorsTakeTheCallersMemory) {
  // A skip-copy program: x (input) and y (output) are cuda:0 tensors the caller supplies.
  MethodBuilder b("forward");
  int32_t x = b.add_runtime_tensor(kFloat4Cuda0);
  int32_t y = b.add_runtime_tensor(kFloat4Cuda0);
  b.set_inputs({x});
  b.set_outputs({y});
  MethodPlan plan = b.plan();
  Result<Method*> m = load(plan);
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_TRUE((*m)->needs_caller_memory(0));
  EXPECT_TRUE((*m)->needs_caller_memory(1));
  // Host data is not the caller's device memory.
  HostTensor<float> host({2, 2}, {1, 2, 3, 4});
  Error e = (*m)->set_input(0, host.value);
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(e.message(),
            "method 'forward': input 0 is a runtime-bound float32[2, 2] on cuda:0: it takes the "
            "caller's memory on that device, given float32[2, 2] on cpu:0");
  uint64_t device_words[2][2] = {};
  EValue bound = EValue::from_tensor((*m)->value(0).tensor);
  bound.tensor.data = device_words[0];
  ASSERT_TRUE((*m)->set_input(0, bound).ok());
  EXPECT_FALSE((*m)->needs_caller_memory(0));
  EXPECT_EQ((*m)->value(0).tensor.data, device_words[0]);
  e = (*m)->set_output_data(0, device_words[1], 15);
  EXPECT_EQ(e.message(), "method 'forward': output 0 has 16 bytes, given 15");
  ASSERT_TRUE((*m)->set_output_data(0, device_words[1], 16).ok());
  EXPECT_FALSE((*m)->needs_caller_memory(1));
  EXPECT_EQ((*m)->value(1).tensor.data, device_words[1]);
}

// A caller may take its output memory back: rebinding an output to null leaves it without
// memory again, and a method that then runs names it instead of writing through null.
TEST_F(MethodTest, AnOutputReboundToNullNeedsMemoryAgain) {
  MethodBuilder b("forward");
  int32_t x = b.add_runtime_tensor(kFloat4Cuda0);
  int32_t y = b.add_runtime_tensor(kFloat4Cuda0);
  const int32_t op = b.add_operator("aten::add", "out");
  const int32_t alpha = b.add_int(1);
  b.add_chain();
  b.add_kernel_call(op, {x, x, alpha, y, y});
  b.set_inputs({x});
  b.set_outputs({y});
  MethodPlan plan = b.plan();
  Result<Method*> m = load(plan);
  ASSERT_TRUE(m.ok()) << m.error();
  uint64_t device_words[2][2] = {};
  EValue bound = EValue::from_tensor((*m)->value(x).tensor);
  bound.tensor.data = device_words[0];
  ASSERT_TRUE((*m)->set_input(0, bound).ok());
  ASSERT_TRUE((*m)->set_output_data(0, device_words[1], 16).ok());
  EXPECT_FALSE((*m)->needs_caller_memory(static_cast<size_t>(y)));
  ASSERT_TRUE((*m)->set_output_data(0, nullptr, 16).ok());
  EXPECT_TRUE((*m)->needs_caller_memory(static_cast<size_t>(y)));
  EXPECT_EQ((*m)->value(y).tensor.data, nullptr);
  const Error e = (*m)->execute();
  EXPECT_EQ(e.code(), ErrorCode::InvalidState);
  EXPECT_EQ(e.message(),
            "method 'forward': chain 0 instruction 0: value 1: runtime-bound tensor on cuda:0 has "
            "no memory (the caller supplies it: set_input or set_output_data)");
  // Bound again, it runs.
  ASSERT_TRUE((*m)->set_output_data(0, device_words[1], 16).ok());
  EXPECT_FALSE((*m)->needs_caller_memory(static_cast<size_t>(y)));
}

TEST_F(MethodTest, UsingAnUnboundRuntimeBoundDeviceTensorIsAnError) {
  MethodBuilder b("forward");
  int32_t x = b.add_runtime_tensor(kFloat4Cuda0);
  int32_t y = b.add_runtime_tensor(kFloat4Cuda0);
  const int32_t d2h = b.add_operator("et_copy::_d2h_copy", "out");
  const int32_t out = b.add_runtime_tensor(TensorSpec::of(ScalarType::Float, {2, 2}));
  b.add_chain();
  b.add_kernel_call(d2h, {x, out, out});
  b.set_inputs({x});
  b.set_outputs({out, y});
  MethodPlan plan = b.plan();
  Result<Method*> m = load(plan);
  ASSERT_TRUE(m.ok()) << m.error();
  const Error e = (*m)->execute();
  EXPECT_EQ(e.code(), ErrorCode::InvalidState);
  EXPECT_EQ(e.message(),
            "method 'forward': chain 0 instruction 0: value 0: runtime-bound tensor on cuda:0 has "
            "no memory (the caller supplies it: set_input or set_output_data)");
  MethodPlan planned = device_add_plan();
  Result<Method*> p = load(planned);
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(
      (*p)->set_output_data(0, nullptr, 16).message(),
      "method 'forward': output 0 is not a runtime-bound tensor: its memory is the program's");
}

TEST_F(MethodTest, SetInputChecksIndexTypeAndShape) {
  MethodPlan plan = device_add_plan();
  Result<Method*> m = load(plan);
  ASSERT_TRUE(m.ok());
  HostTensor<float> wrong({4}, {1, 2, 3, 4});
  Error e = (*m)->set_input(0, wrong.value);
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(e.message(),
            "method 'forward': input 0 expects float32[2, 2] on cpu:0 (16 bytes), given "
            "float32[4] on cpu:0 (16 bytes)");
  e = (*m)->set_input(2, wrong.value);
  EXPECT_EQ(e.message(), "method 'forward': input 2 does not exist (2 inputs)");
  e = (*m)->set_input(0, EValue::from_int(3));
  EXPECT_EQ(e.code(), ErrorCode::InvalidType);
  EXPECT_EQ(e.message(), "method 'forward': input 0 is a Tensor, given Int");
  float out[3];
  e = (*m)->copy_output_to_host(0, out, sizeof(out));
  EXPECT_EQ(e.message(), "method 'forward': output 0 has 16 bytes, the destination 12");
}

TEST_F(MethodTest, DeviceInputIsCopiedThroughTheAllocator) {
  MethodPlan plan = device_input_output_plan();
  Result<Method*> m = load(plan);
  ASSERT_TRUE(m.ok()) << m.error();
  HostTensor<float> in({2, 2}, {5, 6, 7, 8});
  ASSERT_TRUE((*m)->set_input(0, in.value).ok());
  EXPECT_EQ(tracking().stats(2).host_to_device_copies, 1u);
  float out[4] = {};
  ASSERT_TRUE((*m)->copy_output_to_host(0, out, 16).ok());
  EXPECT_EQ(tracking().stats(2).device_to_host_copies, 1u);
  EXPECT_EQ(std::vector<float>(out, out + 4), (std::vector<float>{5, 6, 7, 8}));
}

TEST_F(MethodTest, JumpFalseAndMove) {
  MethodBuilder b("forward");
  uint32_t buf = b.add_buffer(32);
  int32_t x = b.add_planned_tensor(TensorSpec::of(ScalarType::Long, {1}), buf, 0);
  int32_t y = b.add_planned_tensor(TensorSpec::of(ScalarType::Long, {1}), buf, 16);
  int32_t no = b.add_bool(false);
  int32_t slot = b.add_null();
  b.add_jump_false(no, 2);                              // 0: skip instruction 1
  b.add_kernel_call("aten::mul", "out", {x, x, x, x});  // 1: x = x * x (skipped)
  b.add_kernel_call("aten::mul", "out", {x, x, y, y});  // 2: y = x * x
  b.add_move(y, slot);                                  // 3
  b.set_inputs({x});
  b.set_outputs({slot});
  MethodPlan plan = b.plan();
  Result<Method*> m = load(plan);
  ASSERT_TRUE(m.ok()) << m.error();
  HostTensor<int64_t> in({1}, {-7});
  ASSERT_TRUE((*m)->set_input(0, in.value).ok());
  Error e = (*m)->execute();
  ASSERT_TRUE(e.ok()) << e;
  int64_t out = 0;
  ASSERT_TRUE((*m)->copy_output_to_host(0, &out, 8).ok());
  EXPECT_EQ(out, 49);
}

// As ExecuTorch refuses to load such a method, nothing runs: every operator without a kernel and
// every delegate without a backend is named once, at its first instruction, even one a jump skips.
TEST_F(MethodTest, ExecuteNamesEveryMissingKernelAndBackendOnceBeforeRunning) {
  MethodBuilder b("forward");
  uint32_t buf = b.add_buffer(32);
  int32_t x = b.add_planned_tensor(TensorSpec::of(ScalarType::Long, {1}), buf, 0);
  int32_t y = b.add_planned_tensor(TensorSpec::of(ScalarType::Long, {1}), buf, 16);
  int32_t no = b.add_bool(false);
  b.add_kernel_call("aten::mul", "out", {x, x, y, y});                // 0: runs fine
  b.add_jump_false(no, 3);                                            // 1: skips instruction 2
  b.add_kernel_call("aten::sin", "out", {x, y, y});                   // 2
  b.add_kernel_call("aten::cos", "out", {x, y, y});                   // 3
  b.add_kernel_call("aten::sin", "out", {y, x, x});                   // 4: named already
  b.add_delegate_call(b.add_delegate("AbsentBackend", {1}), {x, y});  // 5
  b.set_inputs({x});
  b.set_outputs({y});
  MethodPlan plan = b.plan();
  Result<Method*> m = load(plan);
  ASSERT_TRUE(m.ok()) << m.error();
  HostTensor<int64_t> in({1}, {3});
  ASSERT_TRUE((*m)->set_input(0, in.value).ok());
  const Error e = (*m)->execute();
  EXPECT_EQ(e.code(), ErrorCode::OperatorMissing);
  EXPECT_EQ(e.message(),
            "method 'forward': chain 0 instruction 2: operator aten::sin.out has no kernel; "
            "operator aten::cos.out has no kernel (chain 0 instruction 3); delegate 0 needs "
            "backend AbsentBackend, which is not registered (chain 0 instruction 5)");
  EXPECT_EQ((*m)->missing(),
            (std::vector<std::string>{"kernel aten::sin.out", "kernel aten::cos.out",
                                      "backend AbsentBackend"}));
}

// The missing kernels and backends apart, as the harness's MissingCapability records them: each
// name once, in the order of their first instructions (two delegates of one backend name it once).
TEST_F(MethodTest, MissingKernelsAndBackendsAreNamedApartEachOnce) {
  MethodBuilder b("forward");
  uint32_t buf = b.add_buffer(32);
  int32_t x = b.add_planned_tensor(TensorSpec::of(ScalarType::Long, {1}), buf, 0);
  int32_t y = b.add_planned_tensor(TensorSpec::of(ScalarType::Long, {1}), buf, 16);
  b.add_delegate_call(b.add_delegate("AbsentBackend", {1}), {x, y});
  b.add_kernel_call("aten::cos", "out", {x, y, y});
  b.add_kernel_call("aten::sin", "out", {x, y, y});
  b.add_kernel_call("aten::cos", "out", {y, x, x});
  b.add_delegate_call(b.add_delegate("OtherBackend", {2}), {x, y});
  b.add_delegate_call(b.add_delegate("AbsentBackend", {3}), {x, y});
  b.add_kernel_call("aten::mul", "out", {x, x, y, y});
  b.set_inputs({x});
  b.set_outputs({y});
  MethodPlan plan = b.plan();
  Result<Method*> m = load(plan);
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_EQ((*m)->missing_kernels(), (std::vector<std::string>{"aten::cos.out", "aten::sin.out"}));
  EXPECT_EQ((*m)->missing_backends(), (std::vector<std::string>{"AbsentBackend", "OtherBackend"}));
}

TEST_F(MethodTest, EndlessJumpStopsAtTheStepLimit) {
  MethodBuilder b("forward");
  int32_t no = b.add_bool(false);
  b.add_jump_false(no, 0);
  MethodPlan plan = b.plan();
  MethodRuntime runtime;
  runtime.max_steps = 1000;
  Result<Method*> m = load(plan, runtime);
  ASSERT_TRUE(m.ok()) << m.error();
  Error e = (*m)->execute();
  EXPECT_EQ(e.code(), ErrorCode::InvalidState);
  EXPECT_EQ(e.message(),
            "method 'forward': chain 0 instruction 0: more than 1000 instructions executed; the "
            "chain does not end");
}

TEST_F(MethodTest, JumpOnNonBoolIsInvalidProgram) {
  MethodBuilder b("forward");
  int32_t i = b.add_int(3);
  b.add_jump_false(i, 0);
  MethodPlan plan = b.plan();
  Result<Method*> m = load(plan);
  ASSERT_TRUE(m.ok());
  Error e = (*m)->execute();
  EXPECT_EQ(e.code(), ErrorCode::InvalidProgram);
  EXPECT_EQ(e.message(),
            "method 'forward': chain 0 instruction 0: jump condition value 0 is Int, not a Bool "
            "or a bool tensor");
}

// torch.cond's predicate is a bool tensor: the jump goes on when every element is true. The
// exporter's jump past the last instruction (destination = the chain's length) ends the chain.
TEST_F(MethodTest, JumpOnABoolTensorGoesOnOnlyWhenEveryElementIsTrue) {
  for (const std::vector<uint8_t>& predicate :
       {std::vector<uint8_t>{1, 1}, std::vector<uint8_t>{1, 0}, std::vector<uint8_t>{}}) {
    SCOPED_TRACE(predicate.size() == 2 ? (predicate[1] ? "true, true" : "true, false") : "empty");
    MethodBuilder b("forward");
    uint32_t buf = b.add_buffer(48);
    const int32_t n = static_cast<int32_t>(predicate.size());
    int32_t c = b.add_planned_tensor(TensorSpec::of(ScalarType::Bool, {n}), buf, 0);
    int32_t x = b.add_planned_tensor(TensorSpec::of(ScalarType::Long, {1}), buf, 16);
    int32_t y = b.add_planned_tensor(TensorSpec::of(ScalarType::Long, {1}), buf, 32);
    b.add_jump_false(c, 2);                               // 0: past the end when false
    b.add_kernel_call("aten::mul", "out", {x, x, y, y});  // 1: y = x * x
    b.set_inputs({c, x, y});
    b.set_outputs({y});
    Result<Method*> m = load(b.plan());
    ASSERT_TRUE(m.ok()) << m.error();
    std::vector<uint8_t> bytes = predicate;
    Tensor t;
    t.dtype = ScalarType::Bool;
    t.sizes = {n};
    t.data = bytes.data();
    t.nbytes = bytes.size();
    ASSERT_TRUE((*m)->set_input(0, EValue::from_tensor(t)).ok());
    HostTensor<int64_t> in({1}, {-7}), initial({1}, {5});
    ASSERT_TRUE((*m)->set_input(1, in.value).ok());
    ASSERT_TRUE((*m)->set_input(2, initial.value).ok());
    Error e = (*m)->execute();
    ASSERT_TRUE(e.ok()) << e;
    int64_t out = 0;
    ASSERT_TRUE((*m)->copy_output_to_host(0, &out, 8).ok());
    const bool all_true = predicate.empty() || predicate[1] != 0;  // an empty tensor holds
    EXPECT_EQ(out, all_true ? 49 : 5);
  }
}

TEST_F(MethodTest, JumpOnATensorOfAnotherDtypeIsInvalidProgram) {
  MethodBuilder b("forward");
  uint32_t buf = b.add_buffer(16);
  int32_t c = b.add_planned_tensor(TensorSpec::of(ScalarType::Float, {1}), buf, 0);
  b.add_jump_false(c, 1);
  b.set_inputs({c});
  Result<Method*> m = load(b.plan());
  ASSERT_TRUE(m.ok()) << m.error();
  HostTensor<float> one({1}, {1.0f});
  ASSERT_TRUE((*m)->set_input(0, one.value).ok());
  Error e = (*m)->execute();
  EXPECT_EQ(e.code(), ErrorCode::InvalidProgram);
  EXPECT_EQ(e.message(),
            "method 'forward': chain 0 instruction 0: jump condition value 0 is a float32 tensor, "
            "not a bool tensor");
}

// ExecuTorch takes the destination as an unsigned index: a negative one ends the chain too.
TEST_F(MethodTest, JumpToANegativeDestinationEndsTheChain) {
  MethodBuilder b("forward");
  uint32_t buf = b.add_buffer(32);
  int32_t x = b.add_planned_tensor(TensorSpec::of(ScalarType::Long, {1}), buf, 0);
  int32_t y = b.add_planned_tensor(TensorSpec::of(ScalarType::Long, {1}), buf, 16);
  b.add_jump_false(b.add_bool(false), -1);
  b.add_kernel_call("aten::mul", "out", {x, x, y, y});
  b.set_inputs({x, y});
  b.set_outputs({y});
  Result<Method*> m = load(b.plan());
  ASSERT_TRUE(m.ok()) << m.error();
  HostTensor<int64_t> in({1}, {-7}), initial({1}, {5});
  ASSERT_TRUE((*m)->set_input(0, in.value).ok());
  ASSERT_TRUE((*m)->set_input(1, initial.value).ok());
  ASSERT_TRUE((*m)->execute().ok());
  int64_t out = 0;
  ASSERT_TRUE((*m)->copy_output_to_host(0, &out, 8).ok());
  EXPECT_EQ(out, 5);
}

// ---- boundary pairs ----------------------------------------------------------------------------

// x (value 0) and y (value 1): runtime-bound int32[3] host tensors, 12 bytes each; y = x * x.
MethodPlan runtime_bound_square_plan() {
  MethodBuilder b("forward");
  int32_t x = b.add_runtime_tensor(TensorSpec::of(ScalarType::Int, {3}));
  int32_t y = b.add_runtime_tensor(TensorSpec::of(ScalarType::Int, {3}));
  b.add_kernel_call("aten::mul", "out", {x, x, y, y});
  b.set_inputs({x});
  b.set_outputs({y});
  return b.plan();
}

TEST_F(MethodTest, RuntimeBoundBytesUpToTheLimitLoadAndOneByteLessIsRefused) {
  MethodPlan plan = runtime_bound_square_plan();
  MethodRuntime runtime;
  runtime.max_runtime_bound_bytes = 24;  // exactly x and y
  Result<Method*> m = load(plan, runtime);
  ASSERT_TRUE(m.ok()) << m.error();
  HostTensor<int32_t> in({3}, {2, 3, -4});
  ASSERT_TRUE((*m)->set_input(0, in.value).ok());
  ASSERT_TRUE((*m)->execute().ok());
  int32_t out[3] = {};
  ASSERT_TRUE((*m)->copy_output_to_host(0, out, sizeof(out)).ok());
  EXPECT_EQ(std::vector<int32_t>(out, out + 3), (std::vector<int32_t>{4, 9, 16}));

  // 23: x fits (12 of 23), y does not (12 more than the 11 left).
  runtime.max_runtime_bound_bytes = 23;
  m = load(plan, runtime);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.code(), ErrorCode::MemoryAllocationFailed);
  EXPECT_EQ(m.error().message(),
            "method 'forward': value 1: 12 bytes for a runtime-bound tensor exceed the method's "
            "limit of 23");
  // 11: x alone does not fit.
  runtime.max_runtime_bound_bytes = 11;
  m = load(plan, runtime);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.code(), ErrorCode::MemoryAllocationFailed);
  EXPECT_EQ(m.error().message(),
            "method 'forward': value 0: 12 bytes for a runtime-bound tensor exceed the method's "
            "limit of 11");
}

TEST_F(MethodTest, RuntimeBoundDeviceTensorsDoNotCountTowardsTheHostLimit) {
  MethodBuilder b("forward");
  int32_t x = b.add_runtime_tensor(TensorSpec::of(ScalarType::Int, {3}));
  int32_t y = b.add_runtime_tensor(TensorSpec::of(ScalarType::Int, {3}));
  int32_t d = b.add_runtime_tensor(kFloat4Cuda0);  // 16 bytes, the caller's device memory
  b.set_inputs({x, d});
  b.set_outputs({y});
  MethodPlan plan = b.plan();
  MethodRuntime runtime;
  runtime.max_runtime_bound_bytes = 24;
  Result<Method*> m = load(plan, runtime);
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_TRUE((*m)->needs_caller_memory(2));
  EXPECT_FALSE((*m)->needs_caller_memory(0));
}

TEST_F(MethodTest, PlannedTensorMustBeAlignedToItsElementSize) {
  // Buffer 1 so that the buffer index differs from the value index.
  auto plan_with = [](TensorSpec spec, uint64_t offset) {
    MethodBuilder b("forward");
    b.add_buffer(16);
    uint32_t buf1 = b.add_buffer(16);
    b.add_planned_tensor(spec, buf1, offset);
    return b.plan();
  };
  MethodPlan misaligned = plan_with(TensorSpec::of(ScalarType::Float, {1}), 2);
  Result<Method*> m = load(misaligned);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.code(), ErrorCode::InvalidProgram);
  EXPECT_EQ(m.error().message(),
            "method 'forward': value 0: float32 tensor planned at offset 2 of buffer 1 is not "
            "aligned to its element size 4");
  MethodPlan aligned = plan_with(TensorSpec::of(ScalarType::Float, {1}), 4);
  m = load(aligned);
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_EQ((*m)->value(0).tensor.data, memory_->get()->buffer(1).data() + 4);
  // One-byte elements fit anywhere; a tensor without bytes is not read.
  MethodPlan bytes = plan_with(TensorSpec::of(ScalarType::Byte, {1}), 1);
  m = load(bytes);
  EXPECT_TRUE(m.ok()) << m.error();
  MethodPlan empty = plan_with(TensorSpec::of(ScalarType::Float, {0}), 2);
  m = load(empty);
  EXPECT_TRUE(m.ok()) << m.error();
}

// a, b, out: float32[2, 2] planned in one 48-byte buffer (values 0, 1, 2); alpha Int 1 (value 3);
// slot None (value 4).
struct FreeCallProgram {
  MethodBuilder b{"forward"};
  int32_t a, bb, out, alpha, slot;
  FreeCallProgram() {
    uint32_t buf = b.add_buffer(48);
    a = b.add_planned_tensor(kFloat4, buf, 0);
    bb = b.add_planned_tensor(kFloat4, buf, 16);
    out = b.add_planned_tensor(kFloat4, buf, 32);
    alpha = b.add_int(1);
    slot = b.add_null();
  }
};

TEST_F(MethodTest, UsingAFreedValueIsInvalidState) {
  for (int freed : {0, 1}) {
    FreeCallProgram p;
    p.b.add_free(freed == 0 ? p.a : p.bb);
    p.b.add_kernel_call("aten::add", "out", {p.a, p.bb, p.alpha, p.out, p.out});
    MethodPlan plan = p.b.plan();
    Result<Method*> m = load(plan);
    ASSERT_TRUE(m.ok()) << m.error();
    Error e = (*m)->execute();
    EXPECT_EQ(e.code(), ErrorCode::InvalidState);
    EXPECT_EQ(e.message(), "method 'forward': chain 0 instruction 1: value " +
                               std::to_string(freed) +
                               " is used after a FreeCall released its memory");
    method_.reset();  // it borrows this iteration's plan
  }
}

TEST_F(MethodTest, MovingAFreedValueCarriesItsFreedState) {
  FreeCallProgram p;
  p.b.add_free(p.a);
  p.b.add_move(p.a, p.slot);
  p.b.add_kernel_call("aten::add", "out", {p.slot, p.bb, p.alpha, p.out, p.out});
  Error e = load_and_execute(p.b.plan());
  EXPECT_EQ(e.code(), ErrorCode::InvalidState);
  EXPECT_EQ(e.message(),
            "method 'forward': chain 0 instruction 2: value 4 is used after a FreeCall released "
            "its memory");
}

TEST_F(MethodTest, FreeAfterTheLastUseRunsAndResetsOnEachExecute) {
  FreeCallProgram p;
  p.b.add_kernel_call("aten::add", "out", {p.a, p.bb, p.alpha, p.out, p.out});
  p.b.add_free(p.a);
  p.b.set_inputs({p.a, p.bb});
  p.b.set_outputs({p.out});
  MethodPlan plan = p.b.plan();
  Result<Method*> m = load(plan);
  ASSERT_TRUE(m.ok()) << m.error();
  HostTensor<float> a({2, 2}, {1, 2, 3, 4}), b({2, 2}, {10, 20, 30, 40});
  ASSERT_TRUE((*m)->set_input(0, a.value).ok());
  ASSERT_TRUE((*m)->set_input(1, b.value).ok());
  Error e = (*m)->execute();
  ASSERT_TRUE(e.ok()) << e;
  e = (*m)->execute();  // a is usable again: the freed state lasts one execute()
  ASSERT_TRUE(e.ok()) << e;
  float out[4] = {};
  ASSERT_TRUE((*m)->copy_output_to_host(0, out, sizeof(out)).ok());
  EXPECT_EQ(std::vector<float>(out, out + 4), (std::vector<float>{11, 22, 33, 44}));
}

TEST_F(MethodTest, FreeingANonTensorIsInvalidType) {
  FreeCallProgram p;
  int32_t k = p.b.add_int(3);
  p.b.add_free(k);
  Error e = load_and_execute(p.b.plan());
  EXPECT_EQ(e.code(), ErrorCode::InvalidType);
  EXPECT_EQ(e.message(),
            "method 'forward': chain 0 instruction 0: FreeCall target value 5 is Int, not a "
            "Tensor");
}

TEST_F(MethodTest, StepLimitCountsOverAllChainsAndTakenJumps) {
  MethodBuilder b("forward");
  int32_t yes = b.add_bool(true);
  b.add_jump_false(yes, 0);  // chain 0: falls through
  b.add_chain();
  b.add_jump_false(yes, 0);  // chain 1, instructions 0 and 1
  b.add_jump_false(yes, 0);
  MethodPlan plan = b.plan();
  MethodRuntime runtime;
  runtime.max_steps = 3;
  Result<Method*> m = load(plan, runtime);
  ASSERT_TRUE(m.ok()) << m.error();
  Error e = (*m)->execute();
  EXPECT_TRUE(e.ok()) << e;
  e = (*m)->execute();  // the count starts again
  EXPECT_TRUE(e.ok()) << e;
  runtime.max_steps = 2;
  m = load(plan, runtime);
  ASSERT_TRUE(m.ok()) << m.error();
  e = (*m)->execute();
  EXPECT_EQ(e.code(), ErrorCode::InvalidState);
  EXPECT_EQ(e.message(),
            "method 'forward': chain 1 instruction 1: more than 2 instructions executed; the "
            "chain does not end");
}

TEST_F(MethodTest, SkipCopyInputChecksDtypeShapeAndDeviceOneAtATime) {
  // Input 0 is value 1: the messages name the input, the memory is value 1's.
  MethodBuilder b("forward");
  b.add_int(0);
  int32_t x = b.add_runtime_tensor(kFloat4Cuda0);
  b.set_inputs({x});
  MethodPlan plan = b.plan();
  Result<Method*> m = load(plan);
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_FALSE((*m)->needs_caller_memory(0));
  EXPECT_TRUE((*m)->needs_caller_memory(1));
  uint64_t device_words[2] = {};
  const EValue valid = [&] {
    EValue v = EValue::from_tensor((*m)->value(1).tensor);
    v.tensor.data = device_words;
    return v;
  }();
  const std::string prefix =
      "method 'forward': input 0 is a runtime-bound float32[2, 2] on cuda:0: it takes the "
      "caller's memory on that device, given ";
  EValue wrong = valid;
  wrong.tensor.dtype = ScalarType::Int;
  Error e = (*m)->set_input(0, wrong);
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(e.message(), prefix + "int32[2, 2] on cuda:0");
  wrong = valid;
  wrong.tensor.sizes = {4};
  e = (*m)->set_input(0, wrong);
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(e.message(), prefix + "float32[4] on cuda:0");
  wrong = valid;
  wrong.tensor.device = Device::cuda(1);
  e = (*m)->set_input(0, wrong);
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(e.message(), prefix + "float32[2, 2] on cuda:1");
  // The same shape, dtype and device with a byte fewer (or more) than the method uses.
  for (uint64_t nbytes : {uint64_t{15}, uint64_t{17}}) {
    wrong = valid;
    wrong.tensor.nbytes = nbytes;
    e = (*m)->set_input(0, wrong);
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    EXPECT_EQ(e.message(),
              "method 'forward': input 0 is a runtime-bound float32[2, 2] on cuda:0 "
              "of 16 bytes, given one of " +
                  std::to_string(nbytes) + " bytes");
  }
  EXPECT_TRUE((*m)->needs_caller_memory(1));
  e = (*m)->set_input(0, valid);
  ASSERT_TRUE(e.ok()) << e;
  EXPECT_FALSE((*m)->needs_caller_memory(1));
  EXPECT_EQ((*m)->value(1).tensor.data, device_words);
  // Binding no memory leaves it unbound again.
  EValue none = valid;
  none.tensor.data = nullptr;
  ASSERT_TRUE((*m)->set_input(0, none).ok());
  EXPECT_TRUE((*m)->needs_caller_memory(1));
}

// A one-byte runtime-bound device input needs the caller's memory like any other; a
// zero-byte one never does.
TEST_F(MethodTest, SkipCopyInputOfOneByteNeedsMemoryOfZeroBytesNever) {
  MethodBuilder b("forward");
  const int32_t one = b.add_runtime_tensor(TensorSpec::of(ScalarType::Byte, {1}, Device::cuda(1)));
  const int32_t none = b.add_runtime_tensor(TensorSpec::of(ScalarType::Byte, {0}, Device::cuda(1)));
  b.set_inputs({one, none});
  MethodPlan plan = b.plan();
  Result<Method*> m = load(plan);
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_TRUE((*m)->needs_caller_memory(0));
  EXPECT_FALSE((*m)->needs_caller_memory(1));
  uint64_t word = 0;
  EValue bound = EValue::from_tensor((*m)->value(0).tensor);
  bound.tensor.data = &word;
  ASSERT_TRUE((*m)->set_input(0, bound).ok());
  EXPECT_FALSE((*m)->needs_caller_memory(0));
  bound.tensor.data = nullptr;
  ASSERT_TRUE((*m)->set_input(0, bound).ok());
  EXPECT_TRUE((*m)->needs_caller_memory(0));
  EValue empty = EValue::from_tensor((*m)->value(1).tensor);
  ASSERT_TRUE((*m)->set_input(1, empty).ok());
  EXPECT_FALSE((*m)->needs_caller_memory(1));
}

TEST_F(MethodTest, HostInputMustMatchDtypeByteSizeAndBeHostMemory) {
  MethodPlan plan = device_add_plan();
  Result<Method*> m = load(plan);
  ASSERT_TRUE(m.ok()) << m.error();
  HostTensor<int32_t> ints({2, 2}, {1, 2, 3, 4});
  Error e = (*m)->set_input(0, ints.value);
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(e.message(),
            "method 'forward': input 0 expects float32[2, 2] on cpu:0 (16 bytes), given "
            "int32[2, 2] on cpu:0 (16 bytes)");
  HostTensor<float> floats({2, 2}, {1, 2, 3, 4});
  EValue short_bytes = floats.value;
  short_bytes.tensor.nbytes = 12;
  e = (*m)->set_input(1, short_bytes);
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(e.message(),
            "method 'forward': input 1 expects float32[2, 2] on cpu:0 (16 bytes), given "
            "float32[2, 2] on cpu:0 (12 bytes)");
  EValue on_device = floats.value;
  on_device.tensor.device = Device::cuda(0);
  e = (*m)->set_input(1, on_device);
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(e.message(),
            "method 'forward': input 1: the given tensor must be host memory, found cuda:0");
  e = (*m)->set_input(1, floats.value);
  ASSERT_TRUE(e.ok()) << e;
  EXPECT_EQ(std::memcmp((*m)->value(1).tensor.data, floats.data.data(), 16), 0);
}

TEST_F(MethodTest, ScalarInputTakesOnlyItsOwnTag) {
  MethodBuilder b("forward");
  int32_t x = b.add_runtime_tensor(kFloat4);
  b.add_runtime_tensor(kFloat4);
  int32_t k = b.add_int(7);
  b.set_inputs({k, x});
  MethodPlan plan = b.plan();
  Result<Method*> m = load(plan);
  ASSERT_TRUE(m.ok()) << m.error();
  Error e = (*m)->set_input(0, EValue::from_double(1.5));
  EXPECT_EQ(e.code(), ErrorCode::InvalidType);
  EXPECT_EQ(e.message(), "method 'forward': input 0 is Int, given Double");
  EXPECT_EQ((*m)->value(2).int_value, 7);
  e = (*m)->set_input(1, EValue::from_int(9));
  EXPECT_EQ(e.code(), ErrorCode::InvalidType);
  EXPECT_EQ(e.message(), "method 'forward': input 1 is a Tensor, given Int");
  // As ExecuTorch: a primitive input is fixed at export; only its recorded value is taken.
  e = (*m)->set_input(0, EValue::from_int(9));
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(e.message(),
            "method 'forward': input 0 is Int 7, fixed when the program was exported; given 9");
  e = (*m)->set_input(0, EValue::from_int(7));
  ASSERT_TRUE(e.ok()) << e;
  EXPECT_EQ((*m)->value(2).tag, ValueTag::Int);
  EXPECT_EQ((*m)->value(2).int_value, 7);
}

// ExecuTorch's tolerance for a Double input: 1e-4 + 1e-5 * |recorded|; NaN takes NaN, an
// infinity the one of its sign.
TEST_F(MethodTest, DoubleInputTakesItsRecordedValueWithinExecutorchsTolerance) {
  struct Case {
    double recorded, given;
    bool taken;
  };
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<Case> cases = {
      {2.0, 2.0, true},   {2.0, 2.0 + 1.1e-4, true}, {2.0, 2.0 - 1.3e-4, false},
      {2.0, 1.0, false},  {1e6, 1e6 + 10.0, true},   {1e6, 1e6 + 10.0002, false},
      {nan, nan, true},   {nan, 2.0, false},         {inf, inf, true},
      {inf, -inf, false}, {-inf, -inf, true},        {inf, 1e308, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::to_string(c.recorded) + " given " + std::to_string(c.given));
    MethodBuilder b("forward");
    b.set_inputs({b.add_double(c.recorded)});
    MethodPlan plan = b.plan();
    Result<Method*> m = load(plan);
    ASSERT_TRUE(m.ok()) << m.error();
    const Error e = (*m)->set_input(0, EValue::from_double(c.given));
    EXPECT_EQ(e.ok(), c.taken) << e;
    if (!c.taken) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    }
  }
  MethodBuilder b("forward");
  b.set_inputs({b.add_double(2.0), b.add_bool(true)});
  MethodPlan plan = b.plan();
  Result<Method*> m = load(plan);
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_EQ((*m)->set_input(0, EValue::from_double(1.0)).message(),
            "method 'forward': input 0 is Double 2, fixed when the program was exported; given 1");
  EXPECT_EQ((*m)->set_input(1, EValue::from_bool(false)).message(),
            "method 'forward': input 1 is Bool true, fixed when the program was exported; given "
            "false");
}

TEST_F(MethodTest, KernelsResolveAgainstTheRuntimesRegistryAtLoad) {
  MethodBuilder b("forward");
  uint32_t buf = b.add_buffer(16);
  int32_t x = b.add_planned_tensor(TensorSpec::of(ScalarType::Float, {2}), buf, 0);
  int32_t y = b.add_planned_tensor(TensorSpec::of(ScalarType::Float, {2}), buf, 8);
  b.add_kernel_call("aten::mul", "out", {x, x, y, y});
  b.add_kernel_call("aten::sub", "out", {x, y, y});
  b.set_outputs({y});
  MethodPlan plan = b.plan();
  KernelRegistry registry;
  ASSERT_TRUE(registry
                  .register_kernel("aten::sub.out",
                                   [](KernelContext&, Span<EValue*>) { return Error::success(); })
                  .ok());
  MethodRuntime runtime;
  runtime.kernels = &registry;
  Result<Method*> m = load(plan, runtime);
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_EQ((*m)->missing_operators(), (std::vector<std::string>{"aten::mul.out"}));
  Error e = (*m)->execute();
  EXPECT_EQ(e.code(), ErrorCode::OperatorMissing);
  EXPECT_EQ(e.message(),
            "method 'forward': chain 0 instruction 0: operator aten::mul.out has no kernel");
  ASSERT_TRUE(register_builtin_kernels(registry).ok());
  // The loaded method keeps what it resolved; a new load finds mul.
  EXPECT_EQ((*m)->execute().code(), ErrorCode::OperatorMissing);
  m = load(plan, runtime);
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_TRUE((*m)->missing_operators().empty());
  e = (*m)->execute();
  EXPECT_TRUE(e.ok()) << e;
}

TEST_F(MethodTest, MemoryOnAnotherDeviceIndexOrWithAnExtraBufferIsRefused) {
  MethodPlan plan = device_add_plan();
  MethodPlan other_index = plan;
  other_index.buffer_devices[1] = Device::cuda(1);
  {
    TestPlannedMemory memory(other_index, tracking());
    Result<std::unique_ptr<Method>> m = Method::load(plan, MemoryManager(nullptr, memory.get()));
    ASSERT_FALSE(m.ok());
    EXPECT_EQ(m.code(), ErrorCode::InvalidArgument);
    EXPECT_EQ(m.error().message(),
              "method 'forward': planned buffer 1 is on cuda:1 but the program places it on "
              "cuda:0");
  }
  MethodPlan extra = plan;
  extra.buffer_sizes.push_back(8);
  extra.buffer_devices.push_back(Device::cpu());
  {
    TestPlannedMemory memory(extra, tracking());
    Result<std::unique_ptr<Method>> m = Method::load(plan, MemoryManager(nullptr, memory.get()));
    ASSERT_FALSE(m.ok());
    EXPECT_EQ(m.code(), ErrorCode::InvalidArgument);
    EXPECT_EQ(m.error().message(),
              "method 'forward': planned memory has 3 buffers but the method plans 2");
  }
  TestPlannedMemory same(plan, tracking());
  Result<std::unique_ptr<Method>> m = Method::load(plan, MemoryManager(nullptr, same.get()));
  EXPECT_TRUE(m.ok()) << m.error();
}

TEST_F(MethodTest, ConstantsAreHostDataWhateverTheirTagAndExternalTensorsNeedTheirFile) {
  // ExecuTorch points a constant at the program's bytes, whatever device its tag names.
  MethodBuilder b("forward");
  b.add_constant_tensor(kFloat4Cuda0, std::vector<uint8_t>(16, 7));
  MethodPlan plan = b.plan();
  Result<Method*> m = load(plan);
  ASSERT_TRUE(m.ok()) << m.error();
  const Tensor& constant = (*m)->value(0).tensor;
  EXPECT_EQ(constant.device, Device::cpu());
  EXPECT_EQ(constant.data, plan.values[0].tensor.data.data());
  EXPECT_EQ(tracking().allocate_calls(), 0u);
  MethodBuilder host("forward");
  host.add_constant_tensor(kFloat4, std::vector<uint8_t>(16));
  MethodPlan host_plan = host.plan();
  m = load(host_plan);
  EXPECT_TRUE(m.ok()) << m.error();

  MethodBuilder ext("forward");
  TensorSpec spec = kFloat4;
  spec.fully_qualified_name = "w";
  ext.add_external_tensor(spec);
  MethodPlan ext_plan = ext.plan();
  m = load(ext_plan);
  ASSERT_FALSE(m.ok());
  // As ExecuTorch ("external_data_map is null"): the data file must be given.
  EXPECT_EQ(m.code(), ErrorCode::InvalidState);
  EXPECT_EQ(m.error().message(),
            "method 'forward': value 0: external tensor 'w' is kept in a data file (.ptd) and "
            "none was given (--data FILE.ptd)");
}

TEST_F(MethodTest, OutputIndexPastTheLastIsInvalidArgument) {
  MethodPlan plan = device_add_plan();
  Result<Method*> m = load(plan);
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_TRUE((*m)->get_output(0).ok());
  Result<const EValue*> out = (*m)->get_output(1);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(out.error().message(), "method 'forward': output 1 does not exist (1 outputs)");
  Error e = (*m)->set_output_data(1, nullptr, 0);
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(e.message(), "method 'forward': output 1 does not exist (1 outputs)");
  float host[4];
  e = (*m)->copy_output_to_host(1, host, sizeof(host));
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(e.message(), "method 'forward': output 1 does not exist (1 outputs)");
}

TEST_F(MethodTest, CopyingAScalarOutputIsInvalidType) {
  MethodBuilder b("forward");
  int32_t k = b.add_int(3);
  b.set_outputs({k});
  MethodPlan plan = b.plan();
  Result<Method*> m = load(plan);
  ASSERT_TRUE(m.ok()) << m.error();
  int64_t v = 0;
  Error e = (*m)->copy_output_to_host(0, &v, 8);
  EXPECT_EQ(e.code(), ErrorCode::InvalidType);
  EXPECT_EQ(e.message(), "method 'forward': output 0 is Int, not a Tensor");
  Result<const EValue*> out = (*m)->get_output(0);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)->int_value, 3);
}

TEST_F(MethodTest, DeviceCopiesWithoutARegisteredAllocatorAreNotFound) {
  MethodPlan plan = device_input_output_plan();
  Result<Method*> m = load(plan);
  ASSERT_TRUE(m.ok()) << m.error();
  HostTensor<float> in({2, 2}, {5, 6, 7, 8});
  float out[4] = {};
  {
    ScopedDeviceAllocator none(DeviceType::CUDA, nullptr);
    Error e = (*m)->set_input(0, in.value);
    EXPECT_EQ(e.code(), ErrorCode::NotFound);
    EXPECT_EQ(e.message(), "method 'forward': input 0: no device allocator registered for cuda:2");
    e = (*m)->copy_output_to_host(0, out, sizeof(out));
    EXPECT_EQ(e.code(), ErrorCode::NotFound);
    EXPECT_EQ(e.message(), "method 'forward': output 0: no device allocator registered for cuda:2");
  }
  EXPECT_EQ(tracking().stats(2).host_to_device_copies, 0u);
  EXPECT_EQ(tracking().stats(2).device_to_host_copies, 0u);
  ASSERT_TRUE((*m)->set_input(0, in.value).ok());
  ASSERT_TRUE((*m)->copy_output_to_host(0, out, sizeof(out)).ok());
  EXPECT_EQ(std::vector<float>(out, out + 4), (std::vector<float>{5, 6, 7, 8}));
}

TEST_F(MethodTest, InitialValueOfDeviceTensorNeedsAnAllocatorAndEnoughBytes) {
  MethodBuilder b("forward");
  uint32_t dev = b.add_buffer(16, Device::cuda(0));
  std::vector<uint8_t> initial(16, 0x11);
  int32_t w = b.add_planned_tensor_with_initial_value(kFloat4Cuda0, dev, 0, initial);
  b.set_outputs({w});
  MethodPlan plan = b.plan();
  {
    ScopedDeviceAllocator none(DeviceType::CUDA, nullptr);
    Result<Method*> m = load(plan);
    ASSERT_FALSE(m.ok());
    EXPECT_EQ(m.code(), ErrorCode::NotFound);
    EXPECT_EQ(m.error().message(),
              "method 'forward': value 0: no device allocator registered for cuda:0");
  }
  MethodPlan short_plan = plan;
  short_plan.values[w].tensor.data = Span<const uint8_t>(initial.data(), 8);
  Result<Method*> m = load(short_plan);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.code(), ErrorCode::InvalidProgram);
  EXPECT_EQ(m.error().message(), "method 'forward': value 0: initial value has 8 bytes, needs 16");
  EXPECT_EQ(tracking().stats(0).host_to_device_copies, 0u);
  MethodPlan exact = plan;
  exact.values[w].tensor.data = Span<const uint8_t>(initial.data(), 16);
  m = load(exact);
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_EQ(tracking().stats(0).host_to_device_bytes, 16u);
}

TEST_F(MethodTest, MissingBackendIsReportedForItsOwnDelegateIndex) {
  MethodBuilder b("forward");
  b.add_delegate(SimulatedDeviceBackend::kAddBackendId, {});
  int32_t missing = b.add_delegate("NoSuchBackend", {});
  b.add_delegate_call(missing, {});
  MethodPlan plan = b.plan();
  Result<Method*> m = load(plan);
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_EQ((*m)->missing_operators(), (std::vector<std::string>{"delegate NoSuchBackend"}));
  Error e = (*m)->execute();
  EXPECT_EQ(e.code(), ErrorCode::OperatorMissing);
  EXPECT_EQ(e.message(),
            "method 'forward': chain 0 instruction 0: delegate 1 needs backend NoSuchBackend, "
            "which is not registered");
  EXPECT_EQ(add_backend_.executions(), 0u);
}

}  // namespace
}  // namespace devplan
