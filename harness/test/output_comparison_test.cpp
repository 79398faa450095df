// The output comparison of `devplan fuzz --differential`, without ExecuTorch: outputs that
// differ in a value, in whether they ran, or only in a NaN's sign, and the two known
// divergences.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>

#include <harness/campaign/differential_check.h>
#include <harness/campaign/output_comparison.h>

namespace devplan::harness {
namespace {

OutputValues floats(std::vector<float> values) {
  OutputValues o;
  o.tag = ValueTag::Tensor;
  o.dtype = ScalarType::Float;
  o.sizes = {static_cast<int32_t>(values.size())};
  o.bytes.resize(values.size() * sizeof(float));
  std::memcpy(o.bytes.data(), values.data(), o.bytes.size());
  return o;
}

MethodRun ran(const std::string& name, std::vector<OutputValues> outputs) {
  MethodRun m;
  m.name = name;
  m.outputs = Result<std::vector<OutputValues>>(std::move(outputs));
  return m;
}

MethodRun failed(const std::string& name, Error e) {
  MethodRun m;
  m.name = name;
  m.outputs = Result<std::vector<OutputValues>>(std::move(e));
  return m;
}

TEST(OutputComparison, TheSameValuesAgreeAndADifferentOneIsShown) {
  std::map<std::string, uint64_t> known;
  const std::vector<MethodRun> ours = {ran("a", {floats({1, 2})}), ran("b", {floats({3})})};
  EXPECT_EQ(compare_method_outputs(ours, ours, nullptr, &known), std::nullopt);
  const std::vector<MethodRun> theirs = {ran("a", {floats({1, 2})}), ran("b", {floats({3.5})})};
  EXPECT_EQ(compare_method_outputs(ours, theirs, nullptr, &known),
            "execute(b) outputs: devplan [3]; executorch [3.5]");
  // Only the methods named are compared by value.
  const std::vector<std::string> only_a = {"a"};
  EXPECT_EQ(compare_method_outputs(ours, theirs, &only_a, &known), std::nullopt);
  EXPECT_TRUE(known.empty());
}

TEST(OutputComparison, NansOfEitherSignAreTheSame) {
  std::map<std::string, uint64_t> known;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(compare_method_outputs({ran("m", {floats({nan})})}, {ran("m", {floats({-nan})})},
                                   nullptr, &known),
            std::nullopt);
}

TEST(OutputComparison, OneRanAndTheOtherFailed) {
  std::map<std::string, uint64_t> known;
  EXPECT_EQ(compare_method_outputs({ran("m", {floats({1})})},
                                   {failed("m", Error(ErrorCode::InvalidState, "broke"))}, nullptr,
                                   &known),
            "execute(m): devplan ok; executorch InvalidState: broke");
  EXPECT_EQ(compare_method_outputs({failed("m", Error(ErrorCode::InvalidArgument, "no"))},
                                   {ran("m", {floats({1})})}, nullptr, &known),
            "execute(m): devplan InvalidArgument: no; executorch ok");
}

TEST(OutputComparison, KnownDivergencesAreCountedNotReported) {
  std::map<std::string, uint64_t> known;
  const std::vector<MethodRun> ours = {
      ran("input", {floats({1})}),
      failed("kernel", Error(ErrorCode::OperatorMissing, "operator aten::sin.out has no kernel"))};
  const std::vector<MethodRun> theirs = {
      failed("input", Error(ErrorCode::NotSupported,
                            "ExecuTorch: Planned-buffer copy needs host memory on both sides")),
      ran("kernel", {floats({0.5})})};
  EXPECT_EQ(compare_method_outputs(ours, theirs, nullptr, &known), std::nullopt);
  EXPECT_EQ(known, (std::map<std::string, uint64_t>{{kDivergenceDevicePlannedInput, 1},
                                                    {kDivergenceMissingKernel, 1}}));
}

}  // namespace
}  // namespace devplan::harness
