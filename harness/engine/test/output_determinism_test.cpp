#include <gtest/gtest.h>

#include <harness/campaign/output_determinism.h>

namespace devplan::harness {
namespace {

// Three float [2, 2] tensors in host buffer 0 at `offsets`, a = t0 and b = t1 inputs, c = t2.
MethodScenario method_with(const std::vector<uint64_t>& offsets,
                           std::vector<ScenarioInstruction> code,
                           std::vector<int32_t> inputs = {0, 1},
                           std::vector<int32_t> outputs = {2}) {
  MethodScenario m;
  m.name = "forward";
  m.buffers = {{128, Device::cpu()}};
  for (uint64_t offset : offsets) m.tensors.push_back({ScalarType::Float, {2, 2}, 0, offset});
  m.values = {ScenarioValue()};  // Int 0 (an alpha)
  m.instructions = std::move(code);
  m.inputs = std::move(inputs);
  m.outputs = std::move(outputs);
  return m;
}

const ScenarioInstruction kAdd{ScenarioOp::Add, {0, 1, 2}, {0}};

TEST(OutputDeterminism, DisjointTensorsWrittenBeforeReadAreDetermined) {
  EXPECT_TRUE(outputs_are_determined(method_with({0, 16, 32}, {kAdd})));
}

TEST(OutputDeterminism, AnOutputNobodyWroteIsNot) {
  EXPECT_FALSE(outputs_are_determined(method_with({0, 16, 32}, {})));
  EXPECT_TRUE(outputs_are_determined(method_with({0, 16, 32}, {}, {0, 1}, {1})));
}

TEST(OutputDeterminism, ReadingATensorNobodyWroteIsNot) {
  EXPECT_FALSE(outputs_are_determined(method_with({0, 16, 32}, {kAdd}, {0})));
}

TEST(OutputDeterminism, AWriteThatPartlyOverlapsItsOwnInputIsNot) {
  // c at 8 shares bytes 8..16 with a (0..16): the last byte apart is 16, first overlap 8.
  EXPECT_FALSE(outputs_are_determined(method_with({0, 16, 8}, {kAdd})));
  EXPECT_TRUE(outputs_are_determined(method_with({0, 16, 16 + 16}, {kAdd})));
  // Exactly in place (c is a) is fine: elementwise kernels read each element before writing it.
  EXPECT_TRUE(outputs_are_determined(method_with({0, 16, 0}, {kAdd})));
}

TEST(OutputDeterminism, OverlappingInputsAreNot) {
  EXPECT_FALSE(outputs_are_determined(method_with({0, 15, 32}, {kAdd})));
  EXPECT_TRUE(outputs_are_determined(method_with({0, 16, 32}, {kAdd})));
}

TEST(OutputDeterminism, AWriteClobbersTensorsThatShareItsBytes) {
  // t3 at 40 overlaps c (32..48); after the add writes c, t3 is no longer what was set.
  MethodScenario m = method_with({0, 16, 32, 40}, {kAdd}, {0, 1, 3}, {3});
  EXPECT_FALSE(outputs_are_determined(m));
  m.tensors[3].offset = 48;  // right after c: untouched
  EXPECT_TRUE(outputs_are_determined(m));
}

// An instruction short of operands (a draft the generator left incomplete) determines nothing,
// and is not read past its end.
TEST(OutputDeterminism, AnInstructionShortOfOperandsIsNot) {
  EXPECT_FALSE(outputs_are_determined(
      method_with({0, 16, 32}, {ScenarioInstruction{ScenarioOp::Add, {0, 1}, {0}}})));
  EXPECT_FALSE(outputs_are_determined(
      method_with({0, 16, 32}, {ScenarioInstruction{ScenarioOp::DelegateAdd, {0}, {}}})));
  EXPECT_FALSE(outputs_are_determined(
      method_with({0, 16, 32}, {ScenarioInstruction{ScenarioOp::CopyH2D, {0}, {}}})));
  EXPECT_TRUE(outputs_are_determined(
      method_with({0, 16, 32}, {ScenarioInstruction{ScenarioOp::CopyH2D, {0, 2}, {}}})));
}

TEST(OutputDeterminism, AFreedTensorIsNoLongerSet) {
  const ScenarioInstruction free_c{ScenarioOp::Free, {2}, {}};
  EXPECT_FALSE(outputs_are_determined(method_with({0, 16, 32}, {kAdd, free_c})));
}

}  // namespace
}  // namespace devplan::harness
