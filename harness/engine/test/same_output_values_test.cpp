// same_output_values: how the differential check compares two engines' outputs.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include <harness/campaign/differential_check.h>
#include <harness/values/tensor_values.h>

namespace devplan::harness {
namespace {

// A tensor output holding `values` (read as numbers, "-nan" with its sign) in `dtype`.
OutputValues tensor(ScalarType dtype, const std::vector<std::string>& values) {
  OutputValues o;
  o.tag = ValueTag::Tensor;
  o.dtype = dtype;
  o.sizes = {static_cast<int32_t>(values.size())};
  std::vector<double> numbers;
  for (const std::string& v : values) numbers.push_back(std::strtod(v.c_str(), nullptr));
  Result<std::vector<uint8_t>> bytes =
      encode_values(numbers, dtype, static_cast<int64_t>(numbers.size()));
  EXPECT_TRUE(bytes.ok()) << bytes.error();
  if (bytes.ok()) o.bytes = *bytes;
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
  EXPECT_FALSE(
      same_output_values({tensor(ScalarType::Long, {"1"})}, {tensor(ScalarType::Long, {"2"})}));
}

}  // namespace
}  // namespace devplan::harness
