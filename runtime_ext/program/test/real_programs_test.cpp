// Reads the two real ExecuTorch files (fixtures/executorch) and checks every fact their README
// states, plus what they actually hold (constants, instruction arguments).
#include <gtest/gtest.h>
#include <runtime_ext/program/file_data_loader.h>
#include <runtime_ext/program/program.h>

#include "program_test_util.h"

namespace devplan {
namespace {

using testing_util::as_floats;
using testing_util::executorch_fixture_path;

Result<Program> load_real(const std::string& file_name) {
  Result<FileDataLoader> loader = FileDataLoader::open(executorch_fixture_path(file_name));
  if (!loader.ok()) return loader.error();
  return Program::load(*loader);
}

void expect_planned(const ValueInfo& v, uint32_t buffer, uint64_t offset,
                    const std::vector<int32_t>& sizes) {
  ASSERT_EQ(v.tag, ValueTag::Tensor);
  EXPECT_EQ(v.tensor.storage, TensorStorage::Planned);
  EXPECT_EQ(v.tensor.dtype, ScalarType::Float);
  EXPECT_EQ(v.tensor.sizes, sizes);
  EXPECT_EQ(v.tensor.buffer_index, buffer);
  EXPECT_EQ(v.tensor.offset, offset);
  EXPECT_EQ(v.tensor.device, Device::cpu());
}

TEST(RealProgramsTest, AddPte) {
  Result<Program> program = load_real("add.pte");
  ASSERT_TRUE(program.ok()) << program.error();
  EXPECT_EQ(program->bytes().size(), 728u);
  EXPECT_FALSE(program->extended_header().has_value());
  EXPECT_EQ(program->version(), 0u);
  // It lists one empty segment although it has no segment data.
  ASSERT_EQ(program->segments().size(), 1u);
  EXPECT_EQ(program->segments()[0].size(), 0u);
  ASSERT_EQ(program->num_methods(), 1u);
  EXPECT_STREQ(*program->method_name(0), "forward");
  EXPECT_TRUE(program->method_status("forward").ok());

  Result<MethodMeta> meta = program->method_meta("forward");
  ASSERT_TRUE(meta.ok()) << meta.error();
  EXPECT_STREQ(meta->name(), "forward");
  ASSERT_EQ(meta->num_memory_planned_buffers(), 1u);
  EXPECT_EQ(*meta->memory_planned_buffer_size(0), 48);
  EXPECT_EQ(*meta->memory_planned_buffer_device(0), Device::cpu());
  EXPECT_FALSE(meta->has_device_buffers());
  EXPECT_EQ(meta->num_inputs(), 2u);
  EXPECT_EQ(meta->num_outputs(), 1u);
  EXPECT_EQ(meta->num_instructions(), 1u);
  EXPECT_EQ(meta->num_backends(), 0u);
  Result<TensorMeta> in0 = meta->input_tensor_meta(0);
  ASSERT_TRUE(in0.ok()) << in0.error();
  EXPECT_EQ(in0->dtype, ScalarType::Float);
  ASSERT_EQ(in0->sizes.size(), 1u);
  EXPECT_EQ(in0->sizes[0], 1);
  EXPECT_EQ(in0->nbytes, 4u);
  EXPECT_EQ(in0->device, Device::cpu());
  EXPECT_EQ(in0->storage, TensorStorage::Planned);

  const MethodPlan& plan = meta->plan();
  EXPECT_EQ(plan.buffer_sizes, std::vector<uint64_t>({48}));
  EXPECT_EQ(plan.buffer_devices, std::vector<Device>({Device::cpu()}));
  ASSERT_EQ(plan.values.size(), 4u);
  expect_planned(plan.values[0], 0, 0, {1});
  expect_planned(plan.values[1], 0, 16, {1});
  expect_planned(plan.values[2], 0, 32, {1});
  EXPECT_EQ(plan.values[0].tensor.nbytes, 4u);
  EXPECT_EQ(plan.values[0].tensor.dim_order, std::vector<uint8_t>({0}));
  EXPECT_EQ(plan.values[3].tag, ValueTag::Int);
  EXPECT_EQ(plan.values[3].int_value, 1);
  EXPECT_EQ(plan.inputs, std::vector<int32_t>({0, 1}));
  EXPECT_EQ(plan.outputs, std::vector<int32_t>({2}));
  ASSERT_EQ(plan.operators.size(), 1u);
  EXPECT_EQ(plan.operators[0].full_name(), "aten::add.out");
  ASSERT_EQ(plan.chains.size(), 1u);
  ASSERT_EQ(plan.chains[0].instructions.size(), 1u);
  const InstructionInfo& add = plan.chains[0].instructions[0];
  EXPECT_EQ(add.kind, InstructionKind::KernelCall);
  EXPECT_EQ(add.op_index, 0);
  EXPECT_EQ(add.args, std::vector<int32_t>({0, 1, 3, 2, 2}));
  EXPECT_TRUE(plan.delegates.empty());
}

TEST(RealProgramsTest, LinearNoConstantSegmentPte) {
  Result<Program> program = load_real("linear_no_constant_segment.pte");
  ASSERT_TRUE(program.ok()) << program.error();
  EXPECT_EQ(program->bytes().size(), 1040u);
  EXPECT_FALSE(program->extended_header().has_value());
  EXPECT_TRUE(program->segments().empty());
  ASSERT_EQ(program->num_methods(), 1u);
  Result<const MethodPlan*> plan_or = program->method_plan("forward");
  ASSERT_TRUE(plan_or.ok()) << plan_or.error();
  const MethodPlan& plan = **plan_or;

  EXPECT_EQ(plan.buffer_sizes, std::vector<uint64_t>({32}));
  EXPECT_EQ(plan.buffer_devices, std::vector<Device>({Device::cpu()}));
  ASSERT_EQ(plan.values.size(), 6u);
  // Values 0 and 1: the constants, inline constant_buffer entries 1 and 2.
  for (int v : {0, 1}) {
    const TensorInfo& t = plan.values[v].tensor;
    ASSERT_EQ(plan.values[v].tag, ValueTag::Tensor);
    EXPECT_EQ(t.storage, TensorStorage::Constant);
    EXPECT_EQ(t.sizes, std::vector<int32_t>({2, 2}));
    EXPECT_EQ(t.nbytes, 16u);
    ASSERT_EQ(t.data.size(), 16u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data.data()) % 16, 0u) << "force_align 16";
  }
  EXPECT_EQ(as_floats(plan.values[0].tensor.data), std::vector<float>({3.0f, 3.0f, 3.0f, 3.0f}));
  EXPECT_EQ(as_floats(plan.values[1].tensor.data), std::vector<float>({2.0f, 2.0f, 2.0f, 2.0f}));
  expect_planned(plan.values[2], 0, 0, {2, 2});
  expect_planned(plan.values[3], 0, 16, {2, 2});
  // The output reuses offset 0 of the input: their lifetimes do not overlap.
  expect_planned(plan.values[4], 0, 0, {2, 2});
  EXPECT_EQ(plan.values[2].tensor.dim_order, std::vector<uint8_t>({0, 1}));
  EXPECT_EQ(plan.values[5].tag, ValueTag::Int);
  EXPECT_EQ(plan.values[5].int_value, 1);
  EXPECT_EQ(plan.inputs, std::vector<int32_t>({2}));
  EXPECT_EQ(plan.outputs, std::vector<int32_t>({4}));
  ASSERT_EQ(plan.operators.size(), 2u);
  EXPECT_EQ(plan.operators[0].full_name(), "aten::mul.out");
  EXPECT_EQ(plan.operators[1].full_name(), "aten::add.out");
  ASSERT_EQ(plan.chains.size(), 1u);
  ASSERT_EQ(plan.chains[0].instructions.size(), 2u);
  const InstructionInfo& mul = plan.chains[0].instructions[0];
  EXPECT_EQ(mul.kind, InstructionKind::KernelCall);
  EXPECT_EQ(mul.op_index, 0);
  EXPECT_EQ(mul.args, std::vector<int32_t>({0, 2, 3, 3}));  // 3 * x -> value 3
  const InstructionInfo& add = plan.chains[0].instructions[1];
  EXPECT_EQ(add.op_index, 1);
  EXPECT_EQ(add.args, std::vector<int32_t>({3, 1, 5, 4, 4}));  // value 3 + 2 (alpha 1) -> 4

  Result<MethodMeta> meta = program->method_meta("forward");
  ASSERT_TRUE(meta.ok());
  EXPECT_EQ(meta->num_memory_planned_buffers(), 1u);
  EXPECT_EQ(*meta->memory_planned_buffer_size(0), 32);
  EXPECT_EQ(*meta->memory_planned_buffer_device(0), Device::cpu());
  Result<TensorMeta> out = meta->output_tensor_meta(0);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->nbytes, 16u);
}

TEST(RealProgramsTest, BothFilesLoadFromABufferToo) {
  for (const char* name : {"add.pte", "linear_no_constant_segment.pte"}) {
    const std::vector<uint8_t> bytes = read_file(executorch_fixture_path(name)).value();
    ASSERT_FALSE(bytes.empty()) << name;
    Result<Program> program = Program::load_from_bytes(bytes);
    ASSERT_TRUE(program.ok()) << name << ": " << program.error();
    EXPECT_EQ(program->num_methods(), 1u);
  }
}

}  // namespace
}  // namespace devplan
