#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fixtures/generator/fixture_programs.h>
#include <runtime_ext/writer/program_builder.h>

#include "commands_test_support.h"

namespace devplan::harness {
namespace {

using ::testing::HasSubstr;

using testing::fixture_program;
using testing::real_program;
using testing::run;

TEST(RunCommandTest, RealAddOnePlusTwo) {
  testing::CommandResult r =
      run(&run_command, {real_program("add.pte"), "--input", "1", "--input", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "method forward: 1 outputs\noutput 0: float32[1] on cpu:0 = [3]\n");
}

TEST(RunCommandTest, RealLinearWithOnesByDefault) {
  testing::CommandResult r = run(&run_command, {real_program("linear_no_constant_segment.pte")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "method forward: 1 outputs\noutput 0: float32[2, 2] on cpu:0 = [5, 5, 5, 5]\n");
}

TEST(RunCommandTest, DeviceFixtureRunsOnTheSimulatedDevice) {
  testing::CommandResult r =
      run(&run_command,
          {"--input", "1,2,3,4", fixture_program("device_add_cuda0"), "--input", "10,20,30,40"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "method forward: 1 outputs\noutput 0: float32[2, 2] on cpu:0 = [11, 22, 33, 44]\n");
}

TEST(RunCommandTest, MultiDeviceFixture) {
  testing::CommandResult r = run(&run_command, {fixture_program("multi_device")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "method forward: 1 outputs\noutput 0: float32[2, 2] on cpu:0 = [3, 3, 3, 3]\n");
}

TEST(RunCommandTest, MissingKernelNamesTheOperator) {
  ProgramBuilder builder;
  MethodBuilder& m = builder.add_method("forward");
  uint32_t buf = m.add_buffer(32);
  int32_t x = m.add_planned_tensor(TensorSpec::of(ScalarType::Float, {2}), buf, 0);
  int32_t y = m.add_planned_tensor(TensorSpec::of(ScalarType::Float, {2}), buf, 16);
  m.add_kernel_call("aten::sin", "out", {x, y, y});
  m.set_inputs({x});
  m.set_outputs({y});
  testing::CommandResult r = run(&run_command, {testing::temp_file(builder.build())});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "devplan run: OperatorMissing: method 'forward': chain 0 instruction 0: operator "
            "aten::sin.out has no kernel\n");
}

TEST(RunCommandTest, InputErrorsAreUsageErrors) {
  const std::string f = real_program("add.pte");
  testing::CommandResult r = run(&run_command, {f, "--input", "1", "--input", "2", "--input", "3"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("devplan run: 3 --input given but method 'forward' has 2 inputs\n", 0), 0u);
  r = run(&run_command, {f, "--input", "1,2"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("devplan run: input 0 (float32[1] on cpu:0): 2 values given for 1 "
                        "elements (give one value to fill them all)\n",
                        0),
            0u)
      << r.err;
  r = run(&run_command, {f, "--input", "one"});
  EXPECT_EQ(r.exit_code, 2);
  r = run(&run_command, {f, "--method", "nope"});
  EXPECT_EQ(r.exit_code, 2);
}

TEST(RunCommandTest, BadFileExitsOne) {
  testing::CommandResult r = run(&run_command, {"/nonexistent.pte"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("AccessFailed"));
}

TEST(RunCommandJsonTest, OutputsDocument) {
  testing::CommandResult r = testing::run(
      &run_command,
      {testing::real_program("linear_no_constant_segment.pte"), "--json", "--input", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(
      r.out,
      testing::json_header() +
          R"("method":"forward","runtime":"devplan","outputs":[{"index":0,"type":"Tensor","dtype":"float32","sizes":[2,2],"device":"cpu:0","values":[8.0,8.0,8.0,8.0]}],"leaks":[],"misuse":[]})"
          "\n");
}

// Here (no GPU in CI) `--device cuda` must fail clearly: built without CUDA, or no usable GPU.
TEST(DeviceOptionTest, CudaWithoutAGpuFailsClearly) {
  testing::CommandResult r =
      testing::run(&run_command, {testing::real_program("add.pte"), "--device", "cuda"});
  if (r.exit_code == 0) GTEST_SKIP() << "a GPU is present: " << r.out;
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.rfind("devplan run: NotSupported: --device cuda: ", 0), 0u) << r.err;
  r = testing::run(&simulate_command,
                   {testing::fixture_program("device_add_cuda0"), "--device", "cuda"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("NotSupported: ")) << r.err;
}

TEST(DeviceOptionTest, SimulatedIsTheDefaultAndUnknownKindsAreUsageErrors) {
  testing::CommandResult r = testing::run(
      &run_command, {testing::real_program("add.pte"), "--device", "simulated", "--input", "2"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "method forward: 1 outputs\noutput 0: float32[1] on cpu:0 = [3]\n");  // 2 + 1
  r = testing::run(&run_command, {testing::real_program("add.pte"), "--device", "gpu"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "devplan run: --device: --device expects simulated or cuda, got 'gpu'\n"
            "Run 'devplan run --help' for the options.\n");
  EXPECT_EQ(testing::run(&simulate_command, {testing::real_program("add.pte"), "--device", "tpu"})
                .exit_code,
            2);
}

}  // namespace
}  // namespace devplan::harness
