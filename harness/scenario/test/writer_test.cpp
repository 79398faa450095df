#include <harness/scenario/writer.h>

#include <gtest/gtest.h>

#include <runtime_ext/program/program.h>

#include "example_scenario.h"

namespace devplan {
namespace {

using testing::example_scenario;

const MethodPlan& load_plan(const Program& program, const std::string& name) {
  Result<const MethodPlan*> plan = program.method_plan(name);
  EXPECT_TRUE(plan.ok()) << plan.error();
  return **plan;
}

TEST(ScenarioProgramTest, WritesBuffersTensorsAndValues) {
  const std::vector<uint8_t> bytes = build_program(example_scenario());
  Result<Program> program =
      Program::load_from_bytes(Span<const uint8_t>(bytes.data(), bytes.size()));
  ASSERT_TRUE(program.ok()) << program.error();
  ASSERT_EQ(program->num_methods(), 2u);
  const MethodPlan& m = load_plan(*program, "forward");
  EXPECT_EQ(m.buffer_sizes, (std::vector<uint64_t>{64, 48, 0}));
  EXPECT_EQ(m.buffer_devices, (std::vector<Device>{Device::cpu(), Device::cuda(2), Device::cpu()}));
  ASSERT_EQ(m.values.size(), 13u);
  const struct {
    uint32_t buffer;
    uint64_t offset;
    Device device;
  } tensors[] = {{0, 0, Device::cpu()},
                 {1, 16, Device::cuda(2)},
                 {0, 16, Device::cpu()},
                 {1, 32, Device::cuda(2)}};
  for (size_t t = 0; t < 4; ++t) {
    const ValueInfo& v = m.values[t];
    ASSERT_EQ(v.tag, ValueTag::Tensor) << t;
    EXPECT_EQ(v.tensor.storage, TensorStorage::Planned) << t;
    EXPECT_EQ(v.tensor.dtype, ScalarType::Float) << t;
    EXPECT_EQ(v.tensor.sizes, (std::vector<int32_t>{2, 2})) << t;
    EXPECT_EQ(v.tensor.nbytes, 16u) << t;
    EXPECT_EQ(v.tensor.buffer_index, tensors[t].buffer) << t;
    EXPECT_EQ(v.tensor.offset, tensors[t].offset) << t;
    EXPECT_EQ(v.tensor.device, tensors[t].device) << t;
  }
  EXPECT_EQ(m.values[4].tag, ValueTag::Int);
  EXPECT_EQ(m.values[4].int_value, 1);
  EXPECT_EQ(m.values[5].int_value, 2);
  EXPECT_EQ(m.values[6].tag, ValueTag::TensorList);
  EXPECT_EQ(m.values[6].value_list, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(m.values[7].tag, ValueTag::Double);
  EXPECT_EQ(m.values[7].double_value, 0.5);
  EXPECT_EQ(m.values[8].tag, ValueTag::Bool);
  EXPECT_TRUE(m.values[8].bool_value);
  EXPECT_EQ(m.values[9].tag, ValueTag::Null);
  EXPECT_EQ(m.values[10].int_list, (std::vector<int64_t>{1, -2}));
  EXPECT_EQ(m.values[11].double_list, (std::vector<double>{0.25}));
  EXPECT_EQ(m.values[12].bool_list, (std::vector<bool>{true, false}));
  EXPECT_EQ(m.inputs, (std::vector<int32_t>{0}));
  EXPECT_EQ(m.outputs, (std::vector<int32_t>{2}));

  const MethodPlan& encode = load_plan(*program, "encode");
  EXPECT_TRUE(encode.buffer_sizes.empty());
  EXPECT_TRUE(encode.values.empty());
  // Nothing to run is one empty chain, as ExecuTorch's exporter writes it.
  ASSERT_EQ(encode.chains.size(), 1u);
  EXPECT_TRUE(encode.chains[0].instructions.empty());
}

TEST(ScenarioProgramTest, WritesInstructionsOperatorsAndDelegates) {
  const std::vector<uint8_t> bytes = build_program(example_scenario());
  Result<Program> program =
      Program::load_from_bytes(Span<const uint8_t>(bytes.data(), bytes.size()));
  ASSERT_TRUE(program.ok()) << program.error();
  const MethodPlan& m = load_plan(*program, "forward");
  ASSERT_EQ(m.operators.size(), 4u);
  EXPECT_EQ(m.operators[0].full_name(), "aten::add.out");
  EXPECT_EQ(m.operators[1].full_name(), "et_copy::_h2d_copy.out");
  EXPECT_EQ(m.operators[2].full_name(), "et_copy::_d2h_copy.out");
  EXPECT_EQ(m.operators[3].full_name(), "aten::mul.out");
  ASSERT_EQ(m.delegates.size(), 1u);
  EXPECT_EQ(m.delegates[0].id, "DeviceAddBackend");
  EXPECT_EQ(std::string(m.delegates[0].processed.begin(), m.delegates[0].processed.end()), "add");
  ASSERT_EQ(m.delegates[0].compile_specs.size(), 1u);
  EXPECT_EQ(m.delegates[0].compile_specs[0].key, "target_device");
  EXPECT_EQ(std::string(m.delegates[0].compile_specs[0].value.begin(),
                        m.delegates[0].compile_specs[0].value.end()),
            "cuda:2");
  ASSERT_EQ(m.chains.size(), 1u);
  const std::vector<InstructionInfo>& in = m.chains[0].instructions;
  ASSERT_EQ(in.size(), 8u);
  EXPECT_EQ(in[0].kind, InstructionKind::KernelCall);
  EXPECT_EQ(in[0].op_index, 0);
  EXPECT_EQ(in[0].args, (std::vector<int32_t>{0, 0, 4, 2, 2}));
  EXPECT_EQ(in[1].op_index, 1);
  EXPECT_EQ(in[1].args, (std::vector<int32_t>{2, 1, 1}));
  EXPECT_EQ(in[2].kind, InstructionKind::DelegateCall);
  EXPECT_EQ(in[2].delegate_index, 0);
  EXPECT_EQ(in[2].args, (std::vector<int32_t>{1, 1, 3}));
  EXPECT_EQ(in[3].op_index, 2);
  EXPECT_EQ(in[3].args, (std::vector<int32_t>{3, 0, 0}));
  EXPECT_EQ(in[4].op_index, 3);
  EXPECT_EQ(in[4].args, (std::vector<int32_t>{0, 2, 2, 2}));
  EXPECT_EQ(in[5].kind, InstructionKind::Move);
  EXPECT_EQ(in[5].move_from, 4);
  EXPECT_EQ(in[5].move_to, 5);
  EXPECT_EQ(in[6].kind, InstructionKind::Free);
  EXPECT_EQ(in[6].free_value, 3);
  EXPECT_EQ(in[7].free_value, 6);
}

TEST(ScenarioProgramTest, BuilderPlanMatchesWhatIsRead) {
  const ProgramScenario s = example_scenario();
  ProgramBuilder builder = make_scenario_program_builder(s);
  ASSERT_EQ(builder.num_methods(), 2u);
  EXPECT_EQ(builder.method(0).plan().buffer_sizes, (std::vector<uint64_t>{64, 48, 0}));
  EXPECT_EQ(builder.build(), build_program(s));
}

TEST(ScenarioProgramTest, TensorDeviceOverride) {
  // t3 lives in buffer 1 on cuda:2; written as cuda:1 its tag no longer matches its buffer,
  // which ExecuTorch reads without a check (the reader notes it).
  const ProgramScenario s = example_scenario();
  const std::vector<uint8_t> bytes =
      make_scenario_program_builder(s, {{0, 3, Device::cuda(1)}}).build();
  Result<Program> program =
      Program::load_from_bytes(Span<const uint8_t>(bytes.data(), bytes.size()));
  ASSERT_TRUE(program.ok()) << program.error();
  Result<const MethodPlan*> plan = program->method_plan("forward");
  ASSERT_TRUE(plan.ok()) << plan.error();
  EXPECT_EQ((*plan)->notes, std::vector<std::string>{"value 3: tagged cuda:1, planned in buffer 1 "
                                                     "on cuda:2; its bytes are the buffer's"});
  EXPECT_EQ((*plan)->values[3].tensor.device, Device::cuda(1));
  EXPECT_EQ((*plan)->values[3].tensor.memory_device(), Device::cuda(2));
  EXPECT_TRUE(program->method_status("encode").ok());
}

}  // namespace
}  // namespace devplan
