// same_output_values: how the differential check compares two engines' outputs.
#include <gtest/gtest.h>

#include <harness/fuzz/differential_check.h>

namespace devplan::harness {
namespace {

OutputValues tensor(ScalarType dtype, std::vector<std::string> values) {
  OutputValues o;
  o.tag = ValueTag::Tensor;
  o.dtype = dtype;
  o.sizes = {static_cast<int32_t>(values.size())};
  o.values = std::move(values);
  return o;
}

TEST(SameOutputValues, AnyNanEqualsAnyNanInFloatingPointOutputs) {
  for (ScalarType dtype : {ScalarType::Float, ScalarType::Double, ScalarType::Half}) {
    EXPECT_TRUE(same_output_values({tensor(dtype, {"1", "-nan"})}, {tensor(dtype, {"1", "nan"})}));
    EXPECT_TRUE(same_output_values({tensor(dtype, {"nan"})}, {tensor(dtype, {"nan"})}));
  }
  OutputValues scalar;
  scalar.tag = ValueTag::Double;
  scalar.values = {"nan"};
  OutputValues negative = scalar;
  negative.values = {"-nan"};
  EXPECT_TRUE(same_output_values({scalar}, {negative}));
}

TEST(SameOutputValues, EverythingElseIsComparedExactly) {
  const ScalarType f = ScalarType::Float;
  EXPECT_FALSE(same_output_values({tensor(f, {"nan"})}, {tensor(f, {"1"})}));
  EXPECT_FALSE(same_output_values({tensor(f, {"inf"})}, {tensor(f, {"nan"})}));
  EXPECT_FALSE(same_output_values({tensor(f, {"inf"})}, {tensor(f, {"-inf"})}));
  EXPECT_FALSE(same_output_values({tensor(f, {"0"})}, {tensor(f, {"-0"})}));
  EXPECT_FALSE(same_output_values({tensor(f, {"0.1"})}, {tensor(f, {"0.10000001"})}));
  EXPECT_FALSE(same_output_values({tensor(f, {"1", "2"})}, {tensor(f, {"1"})}));
  EXPECT_FALSE(same_output_values({tensor(f, {"1"})}, {tensor(f, {"1"}), tensor(f, {"1"})}));
  EXPECT_TRUE(same_output_values({tensor(f, {"1"}), tensor(f, {"2"})},
                                 {tensor(f, {"1"}), tensor(f, {"2"})}));
  // Not a floating-point output: texts that read "nan" are compared as they are.
  EXPECT_FALSE(same_output_values({tensor(ScalarType::Long, {"nan"})},
                                  {tensor(ScalarType::Long, {"-nan"})}));
}

}  // namespace
}  // namespace devplan::harness
