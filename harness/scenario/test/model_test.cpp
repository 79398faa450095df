#include <harness/scenario/model.h>

#include <gtest/gtest.h>

#include "example_scenario.h"

namespace devplan {
namespace {

using testing::example_scenario;

TEST(ProgramScenarioTest, DescribesEveryPart) {
  EXPECT_EQ(describe_program_scenario(example_scenario()),
            "method forward: buffer 0 64 B cpu:0, buffer 1 48 B cuda:2, buffer 2 0 B cpu:0\n"
            "  tensors: t0 float32[2, 2] in buffer 0 at 0, t1 float32[2, 2] in buffer 1 at 16, "
            "t2 float32[2, 2] in buffer 0 at 16, t3 float32[2, 2] in buffer 1 at 32\n"
            "  values: v0 Int 1, v1 Int 2, v2 TensorList [t0, t1], v3 Double 0.5, v4 Bool true, "
            "v5 Null, v6 IntList [1, -2], v7 DoubleList [0.25], v8 BoolList [true, false]\n"
            "  instructions: add(t0, t0, alpha v0) -> t2, h2d(t2) -> t1, delegate(t1, t1) -> t3, "
            "d2h(t3) -> t0, mul(t0, t2) -> t2, move v0 -> v1, free t3, free v2\n"
            "  inputs: t0\n"
            "  outputs: t2\n"
            "method encode: no buffers\n");
  EXPECT_EQ(describe_program_scenario(ProgramScenario()), "no methods\n");
}

TEST(ProgramScenarioTest, DescribesScalarTensors) {
  MethodScenario m;
  m.name = "m";
  m.buffers = {{8, Device::cuda(1)}};
  m.tensors = {{ScalarType::Long, {}, 0, 0}};
  EXPECT_EQ(describe_method_scenario(m),
            "method m: buffer 0 8 B cuda:1\n  tensors: t0 int64[] in buffer 0 at 0\n");
}

TEST(ProgramScenarioTest, ExampleIsValid) {
  const Error err = validate_program_scenario(example_scenario());
  EXPECT_TRUE(err.ok()) << err;
}

TEST(ProgramScenarioTest, TensorHelpers) {
  const ProgramScenario s = example_scenario();
  const MethodScenario& m = s.methods[0];
  EXPECT_EQ(m.tensor_device(1), Device::cuda(2));
  EXPECT_EQ(m.tensor_device(0), Device::cpu());
  EXPECT_EQ(m.tensor_device(99), Device::cpu());
  EXPECT_EQ(m.num_device_allocations(), 1u);
  EXPECT_EQ(m.tensor_value_index(3), 3);
  EXPECT_EQ(m.value_value_index(0), 4);
  EXPECT_EQ(s.find_method("encode"), &s.methods[1]);
  EXPECT_EQ(s.find_method("decode"), nullptr);
}

TEST(ProgramScenarioTest, TensorBytes) {
  EXPECT_EQ(scenario_tensor_nbytes({ScalarType::Float, {2, 3}, 0, 0}), 24u);
  EXPECT_EQ(scenario_tensor_nbytes({ScalarType::Long, {}, 0, 0}), 8u);
  EXPECT_EQ(scenario_tensor_nbytes({ScalarType::Int, {4, 0}, 0, 0}), 0u);
  EXPECT_EQ(scenario_tensor_nbytes({ScalarType::Int, {-1}, 0, 0}), 0u);
  EXPECT_EQ(scenario_tensor_nbytes({static_cast<ScalarType>(99), {2}, 0, 0}), 0u);
  EXPECT_EQ(scenario_tensor_nbytes({ScalarType::Long, {INT32_MAX, INT32_MAX, INT32_MAX}, 0, 0}),
            UINT64_MAX);
}

TEST(ProgramScenarioTest, KernelDtypes) {
  EXPECT_TRUE(is_kernel_dtype(ScalarType::Float));
  EXPECT_TRUE(is_kernel_dtype(ScalarType::Double));
  EXPECT_TRUE(is_kernel_dtype(ScalarType::Int));
  EXPECT_TRUE(is_kernel_dtype(ScalarType::Long));
  EXPECT_FALSE(is_kernel_dtype(ScalarType::Half));
  EXPECT_FALSE(is_kernel_dtype(ScalarType::Bool));
}

// Applies `change` to the example and returns validate's message.
template <typename F>
std::string invalid_because(F change) {
  ProgramScenario s = example_scenario();
  change(s.methods[0]);
  const Error err = validate_program_scenario(s);
  EXPECT_EQ(err.code(), ErrorCode::InvalidArgument);
  return err.message();
}

TEST(ProgramScenarioTest, ValidateNamesWhatIsWrong) {
  EXPECT_EQ(validate_program_scenario(ProgramScenario()).message(), "the program has no methods");
  {
    ProgramScenario s = example_scenario();
    s.methods[1].name = "forward";
    EXPECT_EQ(validate_program_scenario(s).message(), "two methods are named 'forward'");
    s.methods[1].name = "";
    EXPECT_EQ(validate_program_scenario(s).message(), "method 1 has no name");
  }
  EXPECT_EQ(invalid_because([](MethodScenario& m) { m.buffers[2].device = Device::cuda(-1); }),
            "method 'forward': buffer 2 is on unsupported device cuda:-1");
  EXPECT_EQ(invalid_because([](MethodScenario& m) { m.tensors[1].buffer = 3; }),
            "method 'forward': tensor 1: buffer 3 does not exist (3 buffers)");
  EXPECT_EQ(invalid_because([](MethodScenario& m) { m.tensors[1].offset = 8; }),
            "method 'forward': tensor 1: offset 8 is not a multiple of 16");
  EXPECT_EQ(
      invalid_because([](MethodScenario& m) { m.tensors[3].offset = 48; }),
      "method 'forward': tensor 3: 16 bytes at offset 48 run past the end of buffer 1 (48 bytes)");
  EXPECT_EQ(invalid_because([](MethodScenario& m) {
              m.tensors[0].shape = {2, -2};
            }),
            "method 'forward': tensor 0: negative dimension -2");
  EXPECT_EQ(invalid_because([](MethodScenario& m) { m.values[2].tensor_list = {4}; }),
            "method 'forward': value 2: TensorList item 4 is not a tensor (4 tensors)");
  EXPECT_EQ(invalid_because([](MethodScenario& m) {
              m.instructions[0].tensors = {0, 1, 2};
            }),
            "method 'forward': instruction 0 (add): t1 is on cuda:2, not the host");
  EXPECT_EQ(invalid_because([](MethodScenario& m) { m.instructions[0].values = {4}; }),
            "method 'forward': instruction 0 (add): alpha v4 is Bool, not usable for float32");
  EXPECT_EQ(invalid_because([](MethodScenario& m) { m.instructions[4].values = {0}; }),
            "method 'forward': instruction 4 (mul): mul takes no values");
  EXPECT_EQ(invalid_because([](MethodScenario& m) { m.tensors[2].shape = {4}; }),
            "method 'forward': instruction 0 (add): t0 is float32[2, 2] but t2 is float32[4]");
  EXPECT_EQ(invalid_because([](MethodScenario& m) {
              m.instructions[1].tensors = {2, 0};
            }),
            "method 'forward': instruction 1 (h2d): t0 is not on a device");
  EXPECT_EQ(invalid_because([](MethodScenario& m) {
              m.instructions[3].tensors = {3, 1};
            }),
            "method 'forward': instruction 3 (d2h): t1 is on cuda:2, not the host");
  EXPECT_EQ(invalid_because([](MethodScenario& m) {
              m.instructions[2].tensors = {1, 0, 3};
            }),
            "method 'forward': instruction 2 (delegate): t0 is on cpu:0, not cuda:2");
  EXPECT_EQ(invalid_because([](MethodScenario& m) {
              m.instructions[2].tensors = {0, 0, 0};
            }),
            "method 'forward': instruction 2 (delegate): t0 is not on a device");
  EXPECT_EQ(invalid_because([](MethodScenario& m) {
              m.instructions[2].tensors = {1, 1};
            }),
            "method 'forward': instruction 2 (delegate): expected 3 tensors, got 2");
  EXPECT_EQ(invalid_because([](MethodScenario& m) {
              m.instructions[5].values = {0, 2};
            }),
            "method 'forward': instruction 5 (move): moves Int into TensorList");
  EXPECT_EQ(invalid_because([](MethodScenario& m) {
              m.instructions[5].values = {0, 9};
            }),
            "method 'forward': instruction 5 (move): move needs two existing values");
  EXPECT_EQ(
      invalid_because([](MethodScenario& m) { m.instructions[6].values = {0}; }),
      "method 'forward': instruction 6 (free): free needs exactly one existing tensor or value");
  EXPECT_EQ(invalid_because([](MethodScenario& m) { m.inputs = {4}; }),
            "method 'forward': input 4 is not a tensor");
  EXPECT_EQ(invalid_because([](MethodScenario& m) { m.outputs = {-1}; }),
            "method 'forward': output -1 is not a tensor");
}

TEST(ProgramScenarioTest, AddAcceptsDoubleAlphaOnlyForFloatingTensors) {
  ProgramScenario s = example_scenario();
  s.methods[0].instructions[0].values = {3};  // Double 0.5 on float32: fine
  EXPECT_TRUE(validate_program_scenario(s).ok());
  MethodScenario& m = s.methods[0];
  for (ScenarioTensor& t : m.tensors) t.dtype = ScalarType::Int;
  EXPECT_EQ(validate_program_scenario(s).message(),
            "method 'forward': instruction 0 (add): alpha v3 is Double, not usable for int32");
  m.instructions[0].values = {0};
  EXPECT_TRUE(validate_program_scenario(s).ok());
  for (ScenarioTensor& t : m.tensors) t.dtype = ScalarType::Half;
  EXPECT_EQ(validate_program_scenario(s).message(),
            "method 'forward': instruction 0 (add): dtype float16 has no kernel");
}

TEST(ProgramScenarioTest, Equality) {
  ProgramScenario a = example_scenario();
  ProgramScenario b = example_scenario();
  EXPECT_EQ(a, b);
  b.methods[0].values[3].double_value = 0.75;
  EXPECT_NE(a, b);
  b = example_scenario();
  b.methods[0].values[0].double_value = 3.0;  // not the Int's field: ignored
  EXPECT_EQ(a, b);
  b.methods[0].buffers[1].device = Device::cuda(3);
  EXPECT_NE(a, b);
}

}  // namespace
}  // namespace devplan
