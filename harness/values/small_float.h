// The floating-point formats narrower than float32 that programs use for tensor elements:
// float16 (IEEE binary16), bfloat16 and the four float8 formats, converted to and from double
// for `devplan run` (inputs given as text, outputs printed).
//
//   Result<uint32_t> bits = encode_small_float(kFloat16, 0.1);   // 0x2E66
//   double v = decode_small_float(kFloat16, 0x2E66);             // 0.0999755859375
//
// Encoding rounds to the nearest value, ties to an even mantissa. A finite value beyond the
// largest one rounds to infinity in the formats that have it (float16, bfloat16, float8_e5m2);
// in the others (float8_e4m3fn and the *fnuz formats) it is an error. NaN encodes in every
// format.
#pragma once

#include <cstdint>
#include <string>

#include <runtime_ext/core/result.h>
#include <runtime_ext/program/scalar_type.h>

namespace devplan::harness {

struct SmallFloatFormat {
  enum class Special {
    Ieee,  // all-ones exponent: infinity (mantissa 0) or NaN
    Fn,    // no infinity; all-ones exponent and mantissa: NaN (float8_e4m3fn)
    Fnuz,  // no infinity, no negative zero; the negative-zero pattern is the NaN
  };
  const char* name;
  int exponent_bits;
  int mantissa_bits;
  int bias;
  Special special;
};

inline constexpr SmallFloatFormat kFloat16{"float16", 5, 10, 15, SmallFloatFormat::Special::Ieee};
inline constexpr SmallFloatFormat kBFloat16{"bfloat16", 8, 7, 127, SmallFloatFormat::Special::Ieee};
inline constexpr SmallFloatFormat kFloat8E5M2{"float8_e5m2", 5, 2, 15,
                                              SmallFloatFormat::Special::Ieee};
inline constexpr SmallFloatFormat kFloat8E4M3Fn{"float8_e4m3fn", 4, 3, 7,
                                                SmallFloatFormat::Special::Fn};
inline constexpr SmallFloatFormat kFloat8E5M2Fnuz{"float8_e5m2fnuz", 5, 2, 16,
                                                  SmallFloatFormat::Special::Fnuz};
inline constexpr SmallFloatFormat kFloat8E4M3Fnuz{"float8_e4m3fnuz", 4, 3, 8,
                                                  SmallFloatFormat::Special::Fnuz};

// The bit pattern nearest to `value`. InvalidArgument naming the value and the format's largest
// value when it is out of range of a format without infinity.
Result<uint32_t> encode_small_float(const SmallFloatFormat& format, double value);

// The value of the bit pattern `bits` (exact: every such value is a double).
double decode_small_float(const SmallFloatFormat& format, uint32_t bits);

// The format of `dtype` (float16, bfloat16, the float8 types), or nullptr for any other dtype.
const SmallFloatFormat* small_float_format_of(ScalarType dtype);

// The shortest decimal text that encodes back to `bits` ("0.1", "65504", "inf", "nan").
std::string format_small_float(const SmallFloatFormat& format, uint32_t bits);

}  // namespace devplan::harness
