#include <runtime_ext/executor/method.h>

#include <fixtures/leak_checked_test.h>
#include <gtest/gtest.h>
#include <mocks/simulated_device_backend.h>
#include <runtime_ext/writer/method_builder.h>

#include <cstring>
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
  void TearDown() override {
    method_.reset();
    memory_.reset();
    LeakCheckedTest::TearDown();
  }

  std::unique_ptr<TestPlannedMemory> memory_;
  std::unique_ptr<Method> method_;
};

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

TEST_F(MethodTest, TensorOnAnotherDeviceThanItsBufferIsRefused) {
  MethodPlan plan = device_add_plan();
  plan.values[2].tensor.device = Device::cuda(1);
  Result<Method*> m = load(plan);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.code(), ErrorCode::InvalidProgram);
  EXPECT_EQ(m.error().message(),
            "method 'forward': value 2: tensor on cuda:1 planned in buffer 1 on cuda:0");
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
  MethodPlan plan = b.plan();
  Result<Method*> m = load(plan);
  ASSERT_TRUE(m.ok()) << m.error();
  Error e = (*m)->execute();
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
  MethodBuilder b("forward");
  uint32_t dev = b.add_buffer(16, Device::cuda(2));
  int32_t x =
      b.add_planned_tensor(TensorSpec::of(ScalarType::Float, {2, 2}, Device::cuda(2)), dev, 0);
  b.set_inputs({x});
  b.set_outputs({x});
  MethodPlan plan = b.plan();
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
  b.add_kernel_call("aten::sub", "out", {x});           // 1: would be OperatorMissing
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
            "method 'forward': chain 0 instruction 0: jump condition value 0 is Int, not Bool");
}

}  // namespace
}  // namespace devplan
