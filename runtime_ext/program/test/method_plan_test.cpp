#include <gtest/gtest.h>
#include <runtime_ext/program/method_plan.h>
#include <runtime_ext/program/method_plan_compare.h>

namespace devplan {
namespace {

TEST(MethodPlanTest, ValueTagNames) {
  EXPECT_STREQ(value_tag_name(ValueTag::None), "None");
  EXPECT_STREQ(value_tag_name(ValueTag::Null), "Null");
  EXPECT_STREQ(value_tag_name(ValueTag::Int), "Int");
  EXPECT_STREQ(value_tag_name(ValueTag::Bool), "Bool");
  EXPECT_STREQ(value_tag_name(ValueTag::Double), "Double");
  EXPECT_STREQ(value_tag_name(ValueTag::Tensor), "Tensor");
  EXPECT_STREQ(value_tag_name(ValueTag::String), "String");
  EXPECT_STREQ(value_tag_name(ValueTag::IntList), "IntList");
  EXPECT_STREQ(value_tag_name(ValueTag::DoubleList), "DoubleList");
  EXPECT_STREQ(value_tag_name(ValueTag::BoolList), "BoolList");
  EXPECT_STREQ(value_tag_name(ValueTag::TensorList), "TensorList");
  EXPECT_STREQ(value_tag_name(ValueTag::OptionalTensorList), "OptionalTensorList");
  EXPECT_STREQ(value_tag_name(static_cast<ValueTag>(40)), "Unknown");
}

TEST(MethodPlanTest, ValueTagsUseTheFileUnionNumbering) {
  EXPECT_EQ(static_cast<int>(ValueTag::None), 0);
  EXPECT_EQ(static_cast<int>(ValueTag::Null), 1);
  EXPECT_EQ(static_cast<int>(ValueTag::Tensor), 5);
  EXPECT_EQ(static_cast<int>(ValueTag::OptionalTensorList), 11);
}

TEST(MethodPlanTest, InstructionKindNames) {
  EXPECT_STREQ(instruction_kind_name(InstructionKind::KernelCall), "KernelCall");
  EXPECT_STREQ(instruction_kind_name(InstructionKind::DelegateCall), "DelegateCall");
  EXPECT_STREQ(instruction_kind_name(InstructionKind::Move), "Move");
  EXPECT_STREQ(instruction_kind_name(InstructionKind::JumpFalse), "JumpFalse");
  EXPECT_STREQ(instruction_kind_name(InstructionKind::Free), "Free");
  EXPECT_STREQ(instruction_kind_name(static_cast<InstructionKind>(9)), "Unknown");
}

MethodPlan sample_plan(const std::vector<uint8_t>& data) {
  MethodPlan p;
  p.name = "forward";
  p.buffer_sizes = {32, 48};
  p.buffer_devices = {Device::cpu(), Device::cuda(0)};
  ValueInfo t;
  t.tag = ValueTag::Tensor;
  t.tensor.sizes = {2, 2};
  t.tensor.storage = TensorStorage::Constant;
  t.tensor.nbytes = 16;
  t.tensor.data = Span<const uint8_t>(data);
  p.values.push_back(t);
  ChainInfo chain;
  InstructionInfo ins;
  ins.kind = InstructionKind::KernelCall;
  ins.op_index = 0;
  ins.args = {0, 0};
  chain.instructions.push_back(ins);
  p.chains.push_back(chain);
  p.operators.push_back(OperatorInfo{"aten::add", "out"});
  return p;
}

TEST(MethodPlanTest, PlansWithTheSameContentAreEqualWhateverTheSpanAddresses) {
  const std::vector<uint8_t> data1(16, 7);
  const std::vector<uint8_t> data2(16, 7);
  EXPECT_EQ(method_plan_difference(sample_plan(data1), sample_plan(data2)), "");
  EXPECT_TRUE(method_plans_equal(sample_plan(data1), sample_plan(data2)));
}

TEST(MethodPlanTest, TheFirstDifferenceIsNamed) {
  const std::vector<uint8_t> data(16, 7);
  std::vector<uint8_t> other_data(16, 7);
  other_data[3] = 9;
  MethodPlan a = sample_plan(data);

  MethodPlan b = sample_plan(data);
  b.buffer_devices[1] = Device::cuda(1);
  EXPECT_EQ(method_plan_difference(a, b), "buffer_devices[1]: cuda:0 vs cuda:1");

  EXPECT_EQ(method_plan_difference(a, sample_plan(other_data)), "value 0: tensor.data[3]: 7 vs 9");

  b = sample_plan(data);
  b.chains[0].instructions[0].args[1] = 3;
  EXPECT_EQ(method_plan_difference(a, b), "chain 0, instruction 0: args[1]: 0 vs 3");

  b = sample_plan(data);
  b.operators[0].overload = "Tensor";
  EXPECT_EQ(method_plan_difference(a, b), "operator 0: overload: 'out' vs 'Tensor'");
  EXPECT_FALSE(method_plans_equal(a, b));

  b = sample_plan(data);
  b.values.pop_back();
  EXPECT_EQ(method_plan_difference(a, b), "values: 1 entry vs 0 entries");
}

}  // namespace
}  // namespace devplan
