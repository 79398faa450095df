#include <harness/values/tensor_values.h>

#include <gtest/gtest.h>

#include <cmath>

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
  EXPECT_EQ(encode_values({1}, ScalarType::QUInt4x2, 1).error().message(),
            "values of dtype quint4x2 are packed several to a byte and cannot be given or printed "
            "as numbers");
  EXPECT_EQ(decode_values({0}, ScalarType::QUInt2x4).code(), ErrorCode::NotSupported);
}

std::vector<std::string> round_trip(const std::vector<double>& values, ScalarType dtype) {
  Result<std::vector<uint8_t>> bytes =
      encode_values(values, dtype, static_cast<int64_t>(values.size()));
  EXPECT_TRUE(bytes.ok()) << bytes.error();
  if (!bytes.ok()) return {};
  EXPECT_EQ(bytes->size(), values.size() * element_size(dtype));
  return *decode_values(*bytes, dtype);
}

std::vector<uint8_t> encoded(double value, ScalarType dtype) {
  Result<std::vector<uint8_t>> bytes = encode_values({value}, dtype, 1);
  EXPECT_TRUE(bytes.ok()) << bytes.error();
  return bytes.ok() ? *bytes : std::vector<uint8_t>{};
}

TEST(TensorValuesTest, UnsignedAndQuantizedIntegersInTheirRanges) {
  EXPECT_EQ(round_trip({0, 1, 65535}, ScalarType::UInt16),
            (std::vector<std::string>{"0", "1", "65535"}));
  EXPECT_EQ(encoded(65535, ScalarType::UInt16), (std::vector<uint8_t>{0xFF, 0xFF}));
  EXPECT_EQ(round_trip({4294967295.0}, ScalarType::UInt32),
            (std::vector<std::string>{"4294967295"}));
  EXPECT_EQ(round_trip({9007199254740992.0}, ScalarType::UInt64),
            (std::vector<std::string>{"9007199254740992"}));
  EXPECT_EQ(round_trip({-128, 127}, ScalarType::QInt8), (std::vector<std::string>{"-128", "127"}));
  EXPECT_EQ(round_trip({255}, ScalarType::QUInt8), (std::vector<std::string>{"255"}));
  EXPECT_EQ(round_trip({-2147483648.0}, ScalarType::QInt32),
            (std::vector<std::string>{"-2147483648"}));
  EXPECT_EQ(round_trip({40000}, ScalarType::Bits16), (std::vector<std::string>{"40000"}));
  EXPECT_EQ(encode_values({65536}, ScalarType::UInt16, 1).error().message(),
            "65536 is not a value of uint16 (whole numbers from 0 to 65535)");
  EXPECT_EQ(encode_values({-1}, ScalarType::UInt32, 1).error().message(),
            "-1 is not a value of uint32 (whole numbers from 0 to 4294967295)");
  EXPECT_EQ(
      encode_values({1, 2.5}, ScalarType::Int, 2).error().message(),
      "element 1: 2.5 is not a value of int32 (whole numbers from -2147483648 to 2147483647)");
  EXPECT_EQ(encode_values({300}, ScalarType::Byte, 4).error().message(),
            "300 is not a value of uint8 (whole numbers from 0 to 255)");
  EXPECT_EQ(encode_values({18446744073709551616.0}, ScalarType::UInt64, 1).code(),
            ErrorCode::InvalidArgument);
}

TEST(TensorValuesTest, SixteenBitFloats) {
  EXPECT_EQ(encoded(1.0, ScalarType::Half), (std::vector<uint8_t>{0x00, 0x3C}));
  EXPECT_EQ(encoded(-2.0, ScalarType::Half), (std::vector<uint8_t>{0x00, 0xC0}));
  EXPECT_EQ(encoded(65504, ScalarType::Half), (std::vector<uint8_t>{0xFF, 0x7B}));
  EXPECT_EQ(encoded(0.1, ScalarType::Half), (std::vector<uint8_t>{0x66, 0x2E}));
  EXPECT_EQ(encoded(1e6, ScalarType::Half), (std::vector<uint8_t>{0x00, 0x7C}));  // inf
  EXPECT_EQ(encoded(5.960464477539063e-08, ScalarType::Half), (std::vector<uint8_t>{0x01, 0x00}));
  EXPECT_EQ(encoded(6.103515625e-05, ScalarType::Half), (std::vector<uint8_t>{0x00, 0x04}));
  // 1 + 2^-11 lies halfway between 1 and 1 + 2^-10: ties go to the even mantissa (1).
  EXPECT_EQ(encoded(1.00048828125, ScalarType::Half), (std::vector<uint8_t>{0x00, 0x3C}));
  EXPECT_EQ(encoded(1.00146484375, ScalarType::Half), (std::vector<uint8_t>{0x02, 0x3C}));
  EXPECT_EQ(round_trip({0.1, 65504, -0.5, 1e6, -1e6}, ScalarType::Half),
            (std::vector<std::string>{"0.1", "65504", "-0.5", "inf", "-inf"}));
  EXPECT_EQ(encoded(1.0, ScalarType::BFloat16), (std::vector<uint8_t>{0x80, 0x3F}));
  EXPECT_EQ(encoded(3.140625, ScalarType::BFloat16), (std::vector<uint8_t>{0x49, 0x40}));
  EXPECT_EQ(round_trip({0.1, 1.5, -3e38}, ScalarType::BFloat16),
            (std::vector<std::string>{"0.1", "1.5", "-3e+38"}));
  EXPECT_EQ(round_trip({std::nan("")}, ScalarType::Half), (std::vector<std::string>{"nan"}));
}

TEST(TensorValuesTest, EightBitFloats) {
  EXPECT_EQ(encoded(448, ScalarType::Float8_e4m3fn), (std::vector<uint8_t>{0x7E}));
  EXPECT_EQ(encoded(-1.0, ScalarType::Float8_e4m3fn), (std::vector<uint8_t>{0xB8}));
  EXPECT_EQ(encoded(0.001953125, ScalarType::Float8_e4m3fn), (std::vector<uint8_t>{0x01}));
  EXPECT_EQ(encode_values({500}, ScalarType::Float8_e4m3fn, 1).error().message(),
            "500 is out of range of float8_e4m3fn (largest 448)");
  EXPECT_EQ(round_trip({448, -0.5, 0.001953125}, ScalarType::Float8_e4m3fn),
            (std::vector<std::string>{"448", "-0.5", "0.002"}));
  EXPECT_EQ(encoded(57344, ScalarType::Float8_e5m2), (std::vector<uint8_t>{0x7B}));
  EXPECT_EQ(encoded(1e9, ScalarType::Float8_e5m2), (std::vector<uint8_t>{0x7C}));  // inf
  EXPECT_EQ(encoded(240, ScalarType::Float8_e4m3fnuz), (std::vector<uint8_t>{0x7F}));
  EXPECT_EQ(encoded(1.0, ScalarType::Float8_e4m3fnuz), (std::vector<uint8_t>{0x40}));
  EXPECT_EQ(encoded(-0.0, ScalarType::Float8_e4m3fnuz), (std::vector<uint8_t>{0x00}));
  EXPECT_EQ(encoded(1.0, ScalarType::Float8_e5m2fnuz), (std::vector<uint8_t>{0x40}));
  EXPECT_EQ(encode_values({1e6}, ScalarType::Float8_e5m2fnuz, 1).error().message(),
            "1000000 is out of range of float8_e5m2fnuz (largest 57344)");
  EXPECT_EQ(round_trip({std::nan("")}, ScalarType::Float8_e4m3fnuz),
            (std::vector<std::string>{"nan"}));
  EXPECT_EQ(encoded(std::nan(""), ScalarType::Float8_e4m3fnuz), (std::vector<uint8_t>{0x80}));
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
