// Every element `devplan run` prints reads back, through --input, to the same bits: every bit
// pattern of the dtypes of 16 bits or fewer, and a spread of float32, float64 and 32/64-bit
// integer patterns (every exponent, the edges of each, and a seeded sample). NaNs print as
// "nan" or "-nan", which read back as a NaN of the same sign (their payload is not printed).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <harness/values/tensor_values.h>
#include <runtime_ext/planning/split_mix64.h>

namespace devplan::harness {
namespace {

// Patterns of one element, as little-endian bytes of element_size(dtype).
std::vector<uint8_t> pattern_bytes(uint64_t pattern, size_t size) {
  std::vector<uint8_t> bytes(size);
  std::memcpy(bytes.data(), &pattern, size);
  return bytes;
}

// Decodes `bytes` (one element), reads its text back as --input does and encodes it again.
// Empty text when the round trip holds, else what went wrong.
std::string round_trip_failure(const std::vector<uint8_t>& bytes, ScalarType dtype) {
  Result<std::vector<std::string>> texts = decode_values(bytes, dtype);
  if (!texts.ok()) return "decode: " + texts.error().to_string();
  const std::string& text = texts->at(0);
  Result<std::vector<double>> numbers = parse_number_list(text);
  if (!numbers.ok()) return "'" + text + "' does not read back: " + numbers.error().to_string();
  Result<std::vector<uint8_t>> again = encode_values(*numbers, dtype, 1);
  if (!again.ok()) return "'" + text + "' does not encode: " + again.error().to_string();
  if (is_nan_text(text)) {
    // The payload is not printed: the value read back must be a NaN of the same sign.
    Result<std::vector<std::string>> again_text = decode_values(*again, dtype);
    return again_text.ok() && again_text->at(0) == text
               ? ""
               : "'" + text + "' reads back as " + again_text->at(0);
  }
  if (*again != bytes) return "'" + text + "' reads back to other bits";
  return "";
}

void expect_every_pattern_round_trips(ScalarType dtype) {
  const size_t size = element_size(dtype);
  ASSERT_LE(size, 2u);
  size_t failures = 0;
  for (uint64_t p = 0; p < (uint64_t{1} << (8 * size)); ++p) {
    if (dtype == ScalarType::Bool && p > 1) break;  // a bool byte is 0 or 1
    const std::string failure = round_trip_failure(pattern_bytes(p, size), dtype);
    if (!failure.empty() && ++failures <= 5) {
      ADD_FAILURE() << scalar_type_name(dtype) << " pattern 0x" << std::hex << p << ": " << failure;
    }
  }
  EXPECT_EQ(failures, 0u) << scalar_type_name(dtype);
}

TEST(ValueTextRoundTrip, EveryPatternOfEverySmallDtype) {
  for (ScalarType dtype :
       {ScalarType::Half, ScalarType::BFloat16, ScalarType::Float8_e5m2, ScalarType::Float8_e4m3fn,
        ScalarType::Float8_e5m2fnuz, ScalarType::Float8_e4m3fnuz, ScalarType::Byte,
        ScalarType::Char, ScalarType::Short, ScalarType::UInt16, ScalarType::QInt8,
        ScalarType::QUInt8, ScalarType::Bits16, ScalarType::Bool}) {
    expect_every_pattern_round_trips(dtype);
  }
}

// For a wide type: every exponent with the smallest, largest and a random mantissa, both signs,
// then `samples` seeded random patterns.
std::vector<uint64_t> wide_patterns(int exponent_bits, int mantissa_bits, size_t samples) {
  std::vector<uint64_t> out;
  const uint64_t mantissa_mask = (uint64_t{1} << mantissa_bits) - 1;
  SplitMix64 rng(20261204);
  for (uint64_t sign = 0; sign < 2; ++sign) {
    for (uint64_t e = 0; e < (uint64_t{1} << exponent_bits); ++e) {
      for (uint64_t m : {uint64_t{0}, uint64_t{1}, mantissa_mask, rng.next() & mantissa_mask}) {
        out.push_back(sign << (exponent_bits + mantissa_bits) | e << mantissa_bits | m);
      }
    }
  }
  const uint64_t mask = exponent_bits + mantissa_bits + 1 == 64
                            ? ~uint64_t{0}
                            : (uint64_t{1} << (exponent_bits + mantissa_bits + 1)) - 1;
  for (size_t i = 0; i < samples; ++i) out.push_back(rng.next() & mask);
  return out;
}

void expect_round_trips(ScalarType dtype, const std::vector<uint64_t>& patterns) {
  size_t failures = 0;
  for (uint64_t p : patterns) {
    const std::string failure = round_trip_failure(pattern_bytes(p, element_size(dtype)), dtype);
    if (!failure.empty() && ++failures <= 5) {
      ADD_FAILURE() << scalar_type_name(dtype) << " pattern 0x" << std::hex << p << ": " << failure;
    }
  }
  EXPECT_EQ(failures, 0u) << scalar_type_name(dtype);
}

TEST(ValueTextRoundTrip, Float32EveryExponentAndASample) {
  expect_round_trips(ScalarType::Float, wide_patterns(8, 23, 30000));
}

TEST(ValueTextRoundTrip, Float64EveryExponentAndASample) {
  expect_round_trips(ScalarType::Double, wide_patterns(11, 52, 30000));
}

TEST(ValueTextRoundTrip, ThirtyTwoBitIntegersEdgesAndASample) {
  std::vector<uint64_t> patterns = {0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffffe};
  SplitMix64 rng(7);
  for (int i = 0; i < 20000; ++i) patterns.push_back(rng.next() & 0xffffffff);
  for (ScalarType dtype : {ScalarType::Int, ScalarType::QInt32, ScalarType::UInt32}) {
    expect_round_trips(dtype, patterns);
  }
}

// 64-bit integers are read as doubles (exact up to 2^53, as --input's help says): every
// pattern within that range round-trips, and the first beyond it is refused by name, not
// rounded.
TEST(ValueTextRoundTrip, SixtyFourBitIntegersUpToTwoToThe53) {
  const uint64_t limit = uint64_t{1} << 53;
  std::vector<uint64_t> unsigned_patterns = {0, 1, limit - 1, limit};
  std::vector<uint64_t> signed_patterns = {0, 1, limit, static_cast<uint64_t>(-int64_t(limit)),
                                           ~uint64_t{0}};
  SplitMix64 rng(11);
  for (int i = 0; i < 20000; ++i) {
    unsigned_patterns.push_back(rng.next() % (limit + 1));
    const int64_t v = static_cast<int64_t>(rng.next() % (2 * limit + 1)) - int64_t(limit);
    signed_patterns.push_back(static_cast<uint64_t>(v));
  }
  expect_round_trips(ScalarType::UInt64, unsigned_patterns);
  expect_round_trips(ScalarType::Long, signed_patterns);
  // 2^53 + 1 prints exactly but reads back as the double 2^53: that is not the same value.
  EXPECT_EQ(round_trip_failure(pattern_bytes(limit + 1, 8), ScalarType::UInt64),
            "'9007199254740993' reads back to other bits");
}

// Subnormal float64 values are printed with the digits that read back to them; reading them
// sets ERANGE in strtod, which must not make them "not a number".
TEST(ValueTextRoundTrip, SubnormalDoublesReadBack) {
  EXPECT_EQ(*parse_number_list("4.9406564584124654e-324"),
            (std::vector<double>{std::numeric_limits<double>::denorm_min()}));
  EXPECT_EQ(round_trip_failure(pattern_bytes(1, 8), ScalarType::Double), "");
  // A number too small for any double is not silently read as 0, nor one too large as inf.
  EXPECT_EQ(parse_number_list("1e-400").error().message(),
            "'1e-400' in '1e-400' is not a number (too small for a double; 0 is written 0)");
  EXPECT_EQ(parse_number_list("1,1e400").error().message(),
            "'1e400' in '1,1e400' is not a number (too large for a double; infinity is written "
            "inf)");
}

// element_number (what output summaries add up) is the element's value exactly: the number an
// integer's text says, and for a floating-point element the value that encodes to its bits.
TEST(ValueTextRoundTrip, ElementNumberIsTheNumberOfTheText) {
  for (int t = 0; t <= static_cast<int>(ScalarType::UInt64); ++t) {
    const ScalarType dtype = static_cast<ScalarType>(t);
    if (!check_decodable(dtype).ok()) continue;
    const size_t size = element_size(dtype);
    for (uint64_t pattern : {uint64_t{0}, uint64_t{1}, uint64_t{0x7f}, uint64_t{0xc8},
                             uint64_t{0x3c00}, uint64_t{0x40490fdb}, uint64_t{0x123456789a}}) {
      const std::vector<uint8_t> bytes = pattern_bytes(pattern, size);
      const std::string text = element_text(bytes, 0, dtype);
      if (is_nan_text(text)) continue;
      const double number = element_number(bytes, 0, dtype);
      if (is_floating_dtype(dtype)) {
        // The shortest text only reads back within the dtype; the number is the element exactly.
        Result<std::vector<uint8_t>> again = encode_values({number}, dtype, 1);
        ASSERT_TRUE(again.ok()) << again.error();
        EXPECT_EQ(*again, bytes) << scalar_type_name(dtype) << " 0x" << std::hex << pattern;
      } else {
        const double from_text = dtype == ScalarType::Bool ? (text == "true" ? 1 : 0)
                                                           : std::strtod(text.c_str(), nullptr);
        EXPECT_EQ(number, from_text)
            << scalar_type_name(dtype) << " 0x" << std::hex << pattern << " '" << text << "'";
      }
    }
  }
}

TEST(ValueTextRoundTrip, BoolPrintsAndReadsTrueAndFalse) {
  EXPECT_EQ(*decode_values({0, 1}, ScalarType::Bool), (std::vector<std::string>{"false", "true"}));
  EXPECT_EQ(*parse_number_list("true,false,1,0"), (std::vector<double>{1, 0, 1, 0}));
}

}  // namespace
}  // namespace devplan::harness
