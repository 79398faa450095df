// MissingCapability: what an engine lacks, recorded by the session where it learns it (the
// runtime_ext engine from its Method), and its text as `report` and `probe` print it.
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <fixtures/generator/fixture_programs.h>
#include <harness/engine/engine.h>
#include <harness/engine/missing_capability.h>
#include <runtime_ext/writer/program_builder.h>

namespace devplan::harness {
namespace {

TEST(MissingCapability, TextNamesKernelsThenBackends) {
  MissingCapability none;
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.text(), "");
  MissingCapability kernels{{"aten::sin.out", "aten::cos.out"}, {}, ""};
  EXPECT_FALSE(kernels.empty());
  EXPECT_EQ(kernels.text(), "no kernel for aten::sin.out, aten::cos.out");
  MissingCapability backends{{}, {"CoreMLBackend"}, ""};
  EXPECT_EQ(backends.text(), "no backend CoreMLBackend");
  MissingCapability both{{"aten::sin.out", "aten::cos.out"}, {"CoreMLBackend", "XnnBackend"}, ""};
  EXPECT_EQ(both.text(),
            "no kernel for aten::sin.out, aten::cos.out; no backend CoreMLBackend, XnnBackend");
  MissingCapability unnamed{{}, {}, "ExecuTorch: load_method('forward') failed"};
  EXPECT_FALSE(unnamed.empty());
  EXPECT_EQ(unnamed.text(),
            "an operator has no kernel (ExecuTorch: load_method('forward') failed)");
  EXPECT_EQ(kernels, (MissingCapability{{"aten::sin.out", "aten::cos.out"}, {}, ""}));
  EXPECT_FALSE(kernels == both);
}

// forward: two operators no kernel library has (one of them twice) and a delegate to a backend
// nobody registered.
std::vector<uint8_t> missing_everything_program() {
  ProgramBuilder builder;
  MethodBuilder& m = builder.add_method("forward");
  const uint32_t host = m.add_buffer(32);
  const int32_t x = m.add_planned_tensor(TensorSpec::of(ScalarType::Long, {1}), host, 0);
  const int32_t y = m.add_planned_tensor(TensorSpec::of(ScalarType::Long, {1}), host, 16);
  m.add_chain();
  m.add_kernel_call("devplan_absent::twice", "out", {x, y, y});
  m.add_delegate_call(m.add_delegate("AbsentBackend", {1}), {x, y});
  m.add_kernel_call("devplan_absent::halve", "out", {y, x, x});
  m.add_kernel_call("devplan_absent::twice", "out", {x, y, y});
  m.set_inputs({x});
  m.set_outputs({y});
  return builder.build();
}

TEST(DevplanSession, RecordsWhatAFailedExecutionLacks) {
  std::unique_ptr<DeviceEnvironment> env =
      std::move(DeviceEnvironment::create(DeviceKind::Simulated)).value();
  Result<std::unique_ptr<EngineSession>> s =
      open_session(RuntimeKind::Devplan, missing_everything_program(), *env, SessionOptions());
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  EXPECT_TRUE((*s)->missing_capability().empty());
  bool usage_error = true;
  Result<std::vector<OutputValues>> out = (*s)->execute("forward", {}, &usage_error);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.code(), ErrorCode::OperatorMissing);
  EXPECT_FALSE(usage_error);
  const MissingCapability& missing = (*s)->missing_capability();
  EXPECT_EQ(missing.kernels,
            (std::vector<std::string>{"devplan_absent::twice.out", "devplan_absent::halve.out"}));
  EXPECT_EQ(missing.backends, std::vector<std::string>{"AbsentBackend"});
  EXPECT_EQ(missing.unnamed, "");
  EXPECT_EQ(missing.text(),
            "no kernel for devplan_absent::twice.out, devplan_absent::halve.out; no backend "
            "AbsentBackend");
  // Loading again starts afresh: the method loads (runtime_ext allows what it lacks).
  ASSERT_TRUE((*s)->unload_method("forward").ok());
  ASSERT_TRUE((*s)->load_method("forward").ok());
  EXPECT_TRUE((*s)->missing_capability().empty());
}

TEST(DevplanSession, RecordsNothingForOtherFailuresOrSuccess) {
  std::unique_ptr<DeviceEnvironment> env =
      std::move(DeviceEnvironment::create(DeviceKind::Simulated)).value();
  Result<std::unique_ptr<EngineSession>> s =
      open_session(RuntimeKind::Devplan, make_cpu_add_program(), *env, SessionOptions());
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  bool usage_error = false;
  Result<std::vector<OutputValues>> out = (*s)->execute("forward", {"not a number"}, &usage_error);
  ASSERT_FALSE(out.ok());
  EXPECT_TRUE(usage_error);
  EXPECT_TRUE((*s)->missing_capability().empty());
  out = (*s)->execute("forward", {"1", "2"}, &usage_error);
  ASSERT_TRUE(out.ok()) << out.error().to_string();
  EXPECT_TRUE((*s)->missing_capability().empty());
}

}  // namespace
}  // namespace devplan::harness
