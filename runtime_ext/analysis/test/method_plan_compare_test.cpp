// method_plan_difference and method_plans_equal: plans compared by content, the first
// difference named.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

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

// One change per field, each named by its path and shown in its own form: every field of a
// value, a tensor, an instruction, a chain, an operator and a delegate takes part.
TEST(MethodPlanTest, EveryFieldIsComparedAndShownInItsOwnForm) {
  const std::vector<uint8_t> data(16, 7);
  const std::vector<uint8_t> spec_a = {1, 2};
  const std::vector<uint8_t> spec_b = {1, 3};
  const MethodPlan a = sample_plan(data);
  struct Case {
    std::function<void(MethodPlan&)> change;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {[](MethodPlan& p) { p.name = "other"; }, "name: 'forward' vs 'other'"},
      {[](MethodPlan& p) { p.buffer_sizes[1] = 49; }, "buffer_sizes[1]: 48 vs 49"},
      {[](MethodPlan& p) { p.buffer_sizes.push_back(1); }, "buffer_sizes: 2 entries vs 3 entries"},
      {[](MethodPlan& p) { p.inputs = {0}; }, "inputs: 0 entries vs 1 entry"},
      {[](MethodPlan& p) { p.outputs = {0}; }, "outputs: 0 entries vs 1 entry"},
      {[](MethodPlan& p) { p.values[0].tag = ValueTag::Int; }, "value 0: tag: Tensor vs Int"},
      {[](MethodPlan& p) { p.values[0].int_value = -3; }, "value 0: int_value: 0 vs -3"},
      {[](MethodPlan& p) { p.values[0].bool_value = true; }, "value 0: bool_value: false vs true"},
      {[](MethodPlan& p) { p.values[0].double_value = -0.0; }, "value 0: double_value: 0 vs -0"},
      {[](MethodPlan& p) { p.values[0].string_value = "s"; }, "value 0: string_value: '' vs 's'"},
      {[](MethodPlan& p) { p.values[0].int_list = {4}; },
       "value 0: int_list: 0 entries vs 1 entry"},
      {[](MethodPlan& p) { p.values[0].double_list = {0.5}; },
       "value 0: double_list: 0 entries vs 1 entry"},
      {[](MethodPlan& p) { p.values[0].bool_list = {true}; },
       "value 0: bool_list: 0 entries vs 1 entry"},
      {[](MethodPlan& p) { p.values[0].value_list = {2}; },
       "value 0: value_list: 0 entries vs 1 entry"},
      {[](MethodPlan& p) { p.values[0].tensor.dtype = ScalarType::Int; },
       "value 0: tensor.dtype: float32 vs int32"},
      {[](MethodPlan& p) { p.values[0].tensor.sizes[1] = 3; }, "value 0: tensor.sizes[1]: 2 vs 3"},
      {[](MethodPlan& p) {
         p.values[0].tensor.dim_order = {1, 0};
       },
       "value 0: tensor.dim_order: 0 entries vs 2 entries"},
      {[](MethodPlan& p) { p.values[0].tensor.dynamism = TensorShapeDynamism::DynamicBound; },
       "value 0: tensor.dynamism: 0 vs 1"},
      {[](MethodPlan& p) { p.values[0].tensor.storage = TensorStorage::Planned; },
       "value 0: tensor.storage: Constant vs Planned"},
      {[](MethodPlan& p) { p.values[0].tensor.storage = TensorStorage::RuntimeBound; },
       "value 0: tensor.storage: Constant vs RuntimeBound"},
      {[](MethodPlan& p) { p.values[0].tensor.storage = TensorStorage::PlannedWithInitial; },
       "value 0: tensor.storage: Constant vs PlannedWithInitial"},
      {[](MethodPlan& p) { p.values[0].tensor.storage = TensorStorage::External; },
       "value 0: tensor.storage: Constant vs External"},
      {[](MethodPlan& p) { p.values[0].tensor.storage = static_cast<TensorStorage>(9); },
       "value 0: tensor.storage: Constant vs unknown(9)"},
      {[](MethodPlan& p) { p.values[0].tensor.nbytes = 17; }, "value 0: tensor.nbytes: 16 vs 17"},
      {[](MethodPlan& p) { p.values[0].tensor.device = Device::cuda(3); },
       "value 0: tensor.device: cpu:0 vs cuda:3"},
      {[](MethodPlan& p) { p.values[0].tensor.buffer_index = 1; },
       "value 0: tensor.buffer_index: 0 vs 1"},
      {[](MethodPlan& p) { p.values[0].tensor.offset = 32; }, "value 0: tensor.offset: 0 vs 32"},
      {[&](MethodPlan& p) { p.values[0].tensor.data = Span<const uint8_t>(data.data(), 15); },
       "value 0: tensor.data: 16 bytes vs 15 bytes"},
      {[](MethodPlan& p) { p.values[0].tensor.fully_qualified_name = "w"; },
       "value 0: tensor.fully_qualified_name: '' vs 'w'"},
      {[](MethodPlan& p) {
         p.chains[0].inputs = {0, 0};
       },
       "chain 0: inputs: 0 entries vs 2 entries"},
      {[](MethodPlan& p) { p.chains[0].outputs = {0}; }, "chain 0: outputs: 0 entries vs 1 entry"},
      {[](MethodPlan& p) { p.chains[0].instructions.emplace_back(); },
       "chain 0: instructions: 1 entry vs 2 entries"},
      {[](MethodPlan& p) { p.chains.emplace_back(); }, "chains: 1 entry vs 2 entries"},
      {[](MethodPlan& p) { p.chains[0].instructions[0].kind = InstructionKind::Free; },
       "chain 0, instruction 0: kind: KernelCall vs Free"},
      {[](MethodPlan& p) { p.chains[0].instructions[0].op_index = 2; },
       "chain 0, instruction 0: op_index: 0 vs 2"},
      {[](MethodPlan& p) { p.chains[0].instructions[0].delegate_index = 1; },
       "chain 0, instruction 0: delegate_index: -1 vs 1"},
      {[](MethodPlan& p) { p.chains[0].instructions[0].move_from = 1; },
       "chain 0, instruction 0: move_from: -1 vs 1"},
      {[](MethodPlan& p) { p.chains[0].instructions[0].move_to = 1; },
       "chain 0, instruction 0: move_to: -1 vs 1"},
      {[](MethodPlan& p) { p.chains[0].instructions[0].cond_value = 1; },
       "chain 0, instruction 0: cond_value: -1 vs 1"},
      {[](MethodPlan& p) { p.chains[0].instructions[0].destination = 1; },
       "chain 0, instruction 0: destination: -1 vs 1"},
      {[](MethodPlan& p) { p.chains[0].instructions[0].free_value = 1; },
       "chain 0, instruction 0: free_value: -1 vs 1"},
      {[](MethodPlan& p) { p.operators[0].name = "aten::mul"; },
       "operator 0: name: 'aten::add' vs 'aten::mul'"},
      {[](MethodPlan& p) { p.operators.emplace_back(); }, "operators: 1 entry vs 2 entries"},
      {[](MethodPlan& p) { p.delegates.emplace_back(); }, "delegates: 0 entries vs 1 entry"},
  };
  for (const Case& c : cases) {
    MethodPlan b = sample_plan(data);
    c.change(b);
    EXPECT_EQ(method_plan_difference(a, b), c.expected);
    EXPECT_FALSE(method_plans_equal(a, b)) << c.expected;
  }

  // Delegates: id, processed bytes and each compile spec's key and value.
  MethodPlan with_delegate = sample_plan(data);
  with_delegate.delegates.push_back({"Backend", Span<const uint8_t>(data), {}});
  with_delegate.delegates[0].compile_specs.push_back({"k", Span<const uint8_t>(spec_a)});
  MethodPlan b = with_delegate;
  b.delegates[0].id = "Other";
  EXPECT_EQ(method_plan_difference(with_delegate, b), "delegate 0: id: 'Backend' vs 'Other'");
  b = with_delegate;
  b.delegates[0].processed = Span<const uint8_t>(spec_a);
  EXPECT_EQ(method_plan_difference(with_delegate, b), "delegate 0: processed: 16 bytes vs 2 bytes");
  // The longer side second, its first bytes the same as the shorter: still a difference.
  EXPECT_EQ(method_plan_difference(b, with_delegate), "delegate 0: processed: 2 bytes vs 16 bytes");
  b.delegates[0].processed = Span<const uint8_t>(data.data(), 2);
  EXPECT_EQ(method_plan_difference(b, with_delegate), "delegate 0: processed: 2 bytes vs 16 bytes");
  b = with_delegate;
  b.delegates[0].compile_specs[0].key = "j";
  EXPECT_EQ(method_plan_difference(with_delegate, b),
            "delegate 0: compile_spec 0: key: 'k' vs 'j'");
  b = with_delegate;
  b.delegates[0].compile_specs[0].value = Span<const uint8_t>(spec_b);
  EXPECT_EQ(method_plan_difference(with_delegate, b),
            "delegate 0: compile_spec 0: value[1]: 2 vs 3");
  b = with_delegate;
  b.delegates[0].compile_specs.emplace_back();
  EXPECT_EQ(method_plan_difference(with_delegate, b),
            "delegate 0: compile_specs: 1 entry vs 2 entries");
  EXPECT_EQ(method_plan_difference(with_delegate, with_delegate), "");
}

// Doubles compare by bits: NaN equals itself; the shown value keeps 17 digits.
TEST(MethodPlanTest, DoublesCompareBitwiseAndShowEveryDigit) {
  const std::vector<uint8_t> data(16, 7);
  MethodPlan a = sample_plan(data);
  MethodPlan b = sample_plan(data);
  a.values[0].double_value = std::nan("");
  b.values[0].double_value = std::nan("");
  EXPECT_EQ(method_plan_difference(a, b), "");
  a.values[0].double_value = 0.1;
  b.values[0].double_value = 0.30000000000000004;
  EXPECT_EQ(method_plan_difference(a, b),
            "value 0: double_value: 0.10000000000000001 vs 0.30000000000000004");
}

// A plan without chains reads the same as one with a single empty chain, either way round;
// a single chain that is not empty does not.
TEST(MethodPlanTest, NoChainsEqualsOneEmptyChain) {
  const std::vector<uint8_t> data(16, 7);
  MethodPlan none = sample_plan(data);
  none.chains.clear();
  MethodPlan empty = sample_plan(data);
  empty.chains[0].instructions.clear();
  EXPECT_EQ(method_plan_difference(none, empty), "");
  EXPECT_EQ(method_plan_difference(empty, none), "");
  MethodPlan with_input = empty;
  with_input.chains[0].inputs = {0};
  EXPECT_EQ(method_plan_difference(none, with_input), "chains: 0 entries vs 1 entry");
  MethodPlan with_output = empty;
  with_output.chains[0].outputs = {0};
  EXPECT_EQ(method_plan_difference(with_output, none), "chains: 1 entry vs 0 entries");
  EXPECT_EQ(method_plan_difference(none, sample_plan(data)), "chains: 0 entries vs 1 entry");
}

}  // namespace
}  // namespace devplan
