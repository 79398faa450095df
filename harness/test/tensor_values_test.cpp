#include <harness/commands/tensor_values.h>

#include <gtest/gtest.h>

namespace devplan::harness {
namespace {

TEST(TensorValuesTest, ParseNumberList) {
  EXPECT_EQ(*parse_number_list("1,2.5,-3"), (std::vector<double>{1, 2.5, -3}));
  EXPECT_EQ(*parse_number_list("7"), (std::vector<double>{7}));
  EXPECT_EQ(parse_number_list("1,,2").error().message(), "'' in '1,,2' is not a number");
  EXPECT_EQ(parse_number_list("1,x").error().message(), "'x' in '1,x' is not a number");
  EXPECT_FALSE(parse_number_list("").ok());
}

TEST(TensorValuesTest, EncodeFillsOrMatches) {
  Result<std::vector<uint8_t>> b = encode_values({2}, ScalarType::Int, 3);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*decode_values(*b, ScalarType::Int), (std::vector<std::string>{"2", "2", "2"}));
  b = encode_values({1.5, -2}, ScalarType::Float, 2);
  EXPECT_EQ(*decode_values(*b, ScalarType::Float), (std::vector<std::string>{"1.5", "-2"}));
  EXPECT_EQ(encode_values({1, 2}, ScalarType::Float, 3).error().message(),
            "2 values given for 3 elements (give one value to fill them all)");
  EXPECT_EQ(encode_values({1}, ScalarType::Half, 1).code(), ErrorCode::NotSupported);
}

TEST(TensorValuesTest, ShortestFormatting) {
  EXPECT_EQ(format_float(0.1f), "0.1");
  EXPECT_EQ(format_float(5.0f), "5");
  EXPECT_EQ(format_number(0.1), "0.1");
  EXPECT_EQ(format_number(1e20), "1e+20");
  // Whole numbers below 1e15 in plain digits, not the exponent %g picks at low precision.
  EXPECT_EQ(format_float(20.0f), "20");
  EXPECT_EQ(format_float(-300.0f), "-300");
  EXPECT_EQ(format_float(16777216.0f), "16777216");
  EXPECT_EQ(format_number(120.0), "120");
  EXPECT_EQ(format_number(999999999999999.0), "999999999999999");
  EXPECT_EQ(format_number(1e15), "1e+15");
  EXPECT_EQ(format_number(2.5e3), "2500");
  EXPECT_EQ(format_number(2.5), "2.5");
  EXPECT_EQ(*decode_values(*encode_values({0, 3}, ScalarType::Bool, 2), ScalarType::Bool),
            (std::vector<std::string>{"false", "true"}));
  EXPECT_EQ(*decode_values(*encode_values({-5}, ScalarType::Long, 1), ScalarType::Long),
            (std::vector<std::string>{"-5"}));
}

}  // namespace
}  // namespace devplan::harness
