// method_plan_difference and method_plans_equal: plans compared by content, the first
// difference named.
#include <gtest/gtest.h>
#include <runtime_ext/analysis/method_plan_compare.h>
#include <runtime_ext/program/method_plan.h>

namespace devplan {
namespace {

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
