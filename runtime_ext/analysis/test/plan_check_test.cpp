// check_method_plan and value_lifetimes over written programs: lifetimes by the rules of
// plan_check.h, lower bounds, views (aliases) and overlaps. The `devplan check` command's
// output over the same programs is tested in harness/test/check_command_test.cpp.
#include <gtest/gtest.h>

#include <fixtures/generator/fixture_programs.h>
#include <runtime_ext/analysis/plan_check.h>
#include <runtime_ext/writer/program_builder.h>

namespace devplan {
namespace {

TEST(PlanCheckTest, LifetimesFollowTheRule) {
  ProgramBuilder source = device_add_cuda0_program_builder();
  int32_t steps = 0;
  std::vector<Lifetime> life = value_lifetimes(source.method(0).plan(), &steps);
  EXPECT_EQ(steps, 4);
  // a: input, last use at the first h2d (step 0); b: input, used at step 1.
  EXPECT_EQ(life[0].first, 0);
  EXPECT_EQ(life[0].last, 0);
  EXPECT_EQ(life[1].first, 0);
  EXPECT_EQ(life[1].last, 1);
  EXPECT_EQ(life[2].first, 0);  // a_dev: h2d out at 0, delegate input at 2
  EXPECT_EQ(life[2].last, 2);
  EXPECT_EQ(life[3].first, 1);
  EXPECT_EQ(life[3].last, 2);
  EXPECT_EQ(life[4].first, 2);  // the delegate's output, read by the d2h at 3
  EXPECT_EQ(life[4].last, 3);
  EXPECT_EQ(life[5].first, 3);  // the output lives to the end
  EXPECT_EQ(life[5].last, 3);
}

TEST(PlanCheckTest, ReferenceProgramIsCleanWithItsLowerBounds) {
  ProgramBuilder source = device_add_cuda0_program_builder();
  MethodCheck c = check_method_plan(source.method(0).plan());
  EXPECT_TRUE(c.overlaps.empty());
  ASSERT_EQ(c.buffers.size(), 2u);
  EXPECT_EQ(c.buffers[0].lower_bound, 32u);
  EXPECT_EQ(c.buffers[0].size, 32u);
  EXPECT_EQ(c.buffers[1].lower_bound, 48u);
  EXPECT_EQ(c.buffers[1].device, Device::cuda(0));
}

TEST(PlanCheckTest, AViewReadAfterItsBaseIsOverwrittenIsAnOverlap) {
  // cpu: a [0,16) input; v = view of a (bytes [0,8), written by nothing); t = add(a, a) written
  // into a's bytes at step 0; then v is read at step 1: its base a must still be live, so t
  // overlapping a while v is in use is a real overlap.
  ProgramBuilder builder;
  MethodBuilder& m = builder.add_method("forward");
  const uint32_t host = m.add_buffer(16);
  const int32_t a = m.add_planned_tensor(TensorSpec::of(ScalarType::Float, {4}), host, 0);
  const int32_t v = m.add_planned_tensor(TensorSpec::of(ScalarType::Float, {2}), host, 0);
  const int32_t t = m.add_planned_tensor(TensorSpec::of(ScalarType::Float, {4}), host, 0);
  const int32_t u = m.add_planned_tensor(TensorSpec::of(ScalarType::Float, {2}), host, 8);
  const int32_t alpha = m.add_int(1);
  m.add_chain();
  m.add_kernel_call("aten::add", "out", {a, a, alpha, t, t});
  m.add_kernel_call("aten::add", "out", {v, v, alpha, u, u});
  m.set_inputs({a});
  m.set_outputs({t, u});
  const MethodCheck c = check_method_plan(builder.method(0).plan());
  EXPECT_EQ(c.alias_of[v], a);
  EXPECT_EQ(c.lifetimes[a].last, 1);  // kept alive by its view
  ASSERT_FALSE(c.overlaps.empty());
  EXPECT_EQ(c.overlaps[0].value_a, a);
  EXPECT_EQ(c.overlaps[0].value_b, t);
}

// m is read before anything writes it and is not an input: a mutable buffer, whose state must
// last from the first step to the last. w, written into m's bytes by the last instruction,
// overlaps it.
TEST(PlanCheckTest, AMutableBufferLivesUpToTheLastStep) {
  ProgramBuilder builder;
  MethodBuilder& b = builder.add_method("forward");
  const uint32_t host = b.add_buffer(64);
  const TensorSpec f4 = TensorSpec::of(ScalarType::Float, {4});
  const int32_t x = b.add_planned_tensor(f4, host, 0);
  const int32_t m = b.add_planned_tensor(f4, host, 16);
  const int32_t t = b.add_planned_tensor(f4, host, 32);
  const int32_t w = b.add_planned_tensor(f4, host, 16);
  const int32_t alpha = b.add_int(1);
  b.add_chain();
  b.add_kernel_call("aten::add", "out", {x, m, alpha, t, t});
  b.add_kernel_call("aten::add", "out", {t, t, alpha, w, w});
  b.set_inputs({x});
  b.set_outputs({w});
  const MethodCheck c = check_method_plan(builder.method(0).plan());
  EXPECT_TRUE(c.mutable_buffer[m]);
  EXPECT_FALSE(c.mutable_buffer[x]);
  EXPECT_EQ(c.lifetimes[m].first, 0);
  EXPECT_EQ(c.lifetimes[m].last, 1);
  ASSERT_EQ(c.overlaps.size(), 1u);
  EXPECT_EQ(c.overlaps[0].value_a, m);
  EXPECT_EQ(c.overlaps[0].value_b, w);
}

// A method with a = float[2,2] host input (value 0, host buffer at 0) and d = float[2,2] on
// cuda:0 (value 1, cuda:0 buffer at 0); the tests add values and instructions.
struct CopyMethod {
  ProgramBuilder builder;
  MethodBuilder* m = nullptr;
  uint32_t host = 0;
  uint32_t dev = 0;
  int32_t a = -1;
  int32_t d = -1;
  CopyMethod() {
    m = &builder.add_method("forward");
    host = m->add_buffer(32);
    dev = m->add_buffer(32, Device::cuda(0));
    a = m->add_planned_tensor(TensorSpec::of(ScalarType::Float, {2, 2}), host, 0);
    d = m->add_planned_tensor(TensorSpec::of(ScalarType::Float, {2, 2}, Device::cuda(0)), dev, 0);
    m->set_inputs({a});
  }
  std::vector<std::string> violations() const {
    std::vector<std::string> out;
    for (const DeviceViolation& v : check_devices(builder.method(0).plan())) {
      out.push_back(v.message);
    }
    return out;
  }
};

std::vector<uint8_t> ascii(const std::string& text) {
  return std::vector<uint8_t>(text.begin(), text.end());
}

TEST(PlanCheckDevicesTest, DeviceToHostCopyTheWrongWayFlagsBothEnds) {
  CopyMethod c;
  c.m->add_chain();
  c.m->add_kernel_call("et_copy::_d2h_copy", "out", {c.a, c.d, c.d});
  c.m->set_outputs({c.d});
  const std::vector<DeviceViolation> found = check_devices(c.builder.method(0).plan());
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].step, 0);
  EXPECT_EQ(found[0].value, 0);
  EXPECT_EQ(found[0].instruction, "et_copy::_d2h_copy.out");
  EXPECT_EQ(found[0].message,
            "instruction 0 (et_copy::_d2h_copy.out): self value 0 is on cpu:0, a device-to-host "
            "copy reads a device");
  EXPECT_EQ(found[1].value, 1);
  EXPECT_EQ(found[1].message,
            "instruction 0 (et_copy::_d2h_copy.out): out value 1 is on cuda:0, a device-to-host "
            "copy writes host memory");
}

TEST(PlanCheckDevicesTest, DeviceToHostCopyTheRightWayIsClean) {
  CopyMethod c;
  c.m->add_chain();
  c.m->add_kernel_call("et_copy::_d2h_copy", "out", {c.d, c.a, c.a});
  c.m->set_outputs({c.a});
  EXPECT_EQ(c.violations(), std::vector<std::string>{});
}

TEST(PlanCheckDevicesTest, CopyOfSameDtypeButOtherSizeIsFlagged) {
  CopyMethod c;
  // h: float[2] on cuda:0 at offset 16 (value 2): same dtype as a, 8 bytes instead of 16.
  const int32_t h =
      c.m->add_planned_tensor(TensorSpec::of(ScalarType::Float, {2}, Device::cuda(0)), c.dev, 16);
  ASSERT_EQ(h, 2);
  c.m->add_chain();
  c.m->add_kernel_call("et_copy::_h2d_copy", "out", {c.a, h, h});
  c.m->set_outputs({h});
  const std::vector<DeviceViolation> found = check_devices(c.builder.method(0).plan());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].value, 2);
  EXPECT_EQ(found[0].message,
            "instruction 0 (et_copy::_h2d_copy.out): self value 0 is float32 (16 B), out value 2 "
            "is float32 (8 B)");
}

TEST(PlanCheckDevicesTest, CopyOfSameDtypeAndSizeIsClean) {
  CopyMethod c;
  c.m->add_chain();
  c.m->add_kernel_call("et_copy::_h2d_copy", "out", {c.a, c.d, c.d});
  c.m->set_outputs({c.d});
  EXPECT_EQ(c.violations(), std::vector<std::string>{});
}

TEST(PlanCheckDevicesTest, DelegateExemptsOnlyHostInputsAndOutputs) {
  CopyMethod c;
  // b: float[2,2] in host memory, neither input nor output (value 2).
  const int32_t b = c.m->add_planned_tensor(TensorSpec::of(ScalarType::Float, {2, 2}), c.host, 16);
  ASSERT_EQ(b, 2);
  const int32_t delegate =
      c.m->add_delegate("DevplanDeviceBackend", ascii("add"), {{"target_device", ascii("cuda:0")}});
  c.m->add_chain();
  c.m->add_delegate_call(delegate, {c.a, b, c.d});
  c.m->set_outputs({c.d});
  const std::vector<DeviceViolation> found = check_devices(c.builder.method(0).plan());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].value, 2);
  EXPECT_EQ(found[0].instruction, "delegate DevplanDeviceBackend on cuda:0");
  EXPECT_EQ(found[0].message,
            "instruction 0 (delegate DevplanDeviceBackend on cuda:0): value 2 is on cpu:0, the "
            "delegate's tensors live on cuda:0");
}

TEST(PlanCheckDevicesTest, DelegateTargetWithoutIndexMeansIndexZero) {
  CopyMethod c;
  const uint32_t dev1 = c.m->add_buffer(16, Device::cuda(1));
  const int32_t e =
      c.m->add_planned_tensor(TensorSpec::of(ScalarType::Float, {2, 2}, Device::cuda(1)), dev1, 0);
  ASSERT_EQ(e, 2);
  const int32_t delegate =
      c.m->add_delegate("DevplanDeviceBackend", ascii("add"), {{"target_device", ascii("cuda")}});
  c.m->add_chain();
  c.m->add_delegate_call(delegate, {c.a, c.d, e});
  c.m->set_outputs({e});
  EXPECT_EQ(c.violations(),
            std::vector<std::string>{
                "instruction 0 (delegate DevplanDeviceBackend on cuda:0): value 2 is on cuda:1, "
                "the delegate's tensors live on cuda:0"});
}

TEST(PlanCheckDevicesTest, DelegateWithUnparsableTargetIsNotChecked) {
  CopyMethod c;
  const uint32_t dev1 = c.m->add_buffer(16, Device::cuda(1));
  const int32_t e =
      c.m->add_planned_tensor(TensorSpec::of(ScalarType::Float, {2, 2}, Device::cuda(1)), dev1, 0);
  const int32_t delegate =
      c.m->add_delegate("DevplanDeviceBackend", ascii("add"), {{"target_device", ascii("gpu:0")}});
  c.m->add_chain();
  c.m->add_delegate_call(delegate, {c.a, c.d, e});
  c.m->set_outputs({e});
  EXPECT_EQ(c.violations(), std::vector<std::string>{});
}

}  // namespace
}  // namespace devplan
