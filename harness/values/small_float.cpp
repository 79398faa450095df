#include <harness/values/small_float.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <harness/values/number_text.h>

namespace devplan::harness {
namespace {

using Special = SmallFloatFormat::Special;

uint32_t sign_bit(const SmallFloatFormat& f) {
  return uint32_t{1} << (f.exponent_bits + f.mantissa_bits);
}
uint32_t all_ones_exponent(const SmallFloatFormat& f) {
  return ((uint32_t{1} << f.exponent_bits) - 1) << f.mantissa_bits;
}
uint32_t mantissa_mask(const SmallFloatFormat& f) { return (uint32_t{1} << f.mantissa_bits) - 1; }

// The largest finite magnitude's pattern.
uint32_t max_finite(const SmallFloatFormat& f) {
  switch (f.special) {
    case Special::Ieee:
      return all_ones_exponent(f) - 1;  // exponent all ones but the last bit, mantissa all ones
    case Special::Fn:
      return all_ones_exponent(f) | (mantissa_mask(f) - 1);
    case Special::Fnuz:
      break;
  }
  return all_ones_exponent(f) | mantissa_mask(f);
}

uint32_t nan_pattern(const SmallFloatFormat& f) {
  switch (f.special) {
    case Special::Ieee:
      return all_ones_exponent(f) | (uint32_t{1} << (f.mantissa_bits - 1));  // quiet NaN
    case Special::Fn:
      return all_ones_exponent(f) | mantissa_mask(f);
    case Special::Fnuz:
      break;
  }
  return sign_bit(f);
}

}  // namespace

double decode_small_float(const SmallFloatFormat& f, uint32_t bits) {
  const bool negative = (bits & sign_bit(f)) != 0;
  const uint32_t magnitude = bits & (sign_bit(f) - 1);
  const uint32_t exponent = magnitude >> f.mantissa_bits;
  const uint32_t mantissa = magnitude & mantissa_mask(f);
  const uint32_t top = (uint32_t{1} << f.exponent_bits) - 1;
  if (f.special == Special::Ieee && exponent == top) {
    if (mantissa != 0) return std::nan("");
    return negative ? -INFINITY : INFINITY;
  }
  if (f.special == Special::Fn && magnitude == (all_ones_exponent(f) | mantissa_mask(f))) {
    return std::nan("");
  }
  if (f.special == Special::Fnuz && bits == sign_bit(f)) return std::nan("");
  const double value =
      exponent == 0 ? std::ldexp(static_cast<double>(mantissa), 1 - f.bias - f.mantissa_bits)
                    : std::ldexp(static_cast<double>(mantissa | (uint32_t{1} << f.mantissa_bits)),
                                 static_cast<int>(exponent) - f.bias - f.mantissa_bits);
  return negative ? -value : value;
}

Result<uint32_t> encode_small_float(const SmallFloatFormat& f, double value) {
  if (std::isnan(value)) return nan_pattern(f);
  const bool negative = std::signbit(value);
  const double a = std::fabs(value);
  uint32_t magnitude = 0;
  if (std::isinf(a)) {
    magnitude = max_finite(f) + 1;  // past the largest: infinity, or out of range below
  } else if (a != 0) {
    int e = 0;
    std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1): the leading bit has weight 2^(e-1)
    const int min_normal_exponent = 1 - f.bias;
    // The weight of the last mantissa bit at a's exponent, or at the subnormals' when below.
    const int lsb = std::max(e - 1, min_normal_exponent) - f.mantissa_bits;
    const double q = std::nearbyint(std::ldexp(a, -lsb));  // round to nearest, ties to even
    // q counts units of 2^lsb. Below the normal range the pattern is q itself (a carry into
    // the exponent field gives the smallest normal); above it, q has its leading bit at
    // mantissa_bits (or mantissa_bits + 1 after rounding up), and the pattern adds the
    // exponent field.
    if (lsb == min_normal_exponent - f.mantissa_bits) {
      magnitude = static_cast<uint32_t>(q);
    } else {
      const uint64_t units = static_cast<uint64_t>(q);
      const int field = (lsb + f.mantissa_bits) + f.bias;  // the exponent field before a carry
      const uint64_t pattern = (static_cast<uint64_t>(field) << f.mantissa_bits) +
                               (units - (uint64_t{1} << f.mantissa_bits));
      magnitude = pattern > max_finite(f) ? max_finite(f) + 1 : static_cast<uint32_t>(pattern);
    }
  }
  if (magnitude > max_finite(f)) {
    if (f.special != Special::Ieee) {
      return Error(ErrorCode::InvalidArgument,
                   format_number(value) + " is out of range of " + f.name + " (largest " +
                       format_number(decode_small_float(f, max_finite(f))) + ")");
    }
    magnitude = all_ones_exponent(f);  // infinity
  }
  if (f.special == Special::Fnuz && magnitude == 0) return uint32_t{0};  // no negative zero
  return (negative ? sign_bit(f) : 0) | magnitude;
}

const SmallFloatFormat* small_float_format_of(ScalarType dtype) {
  switch (dtype) {
    case ScalarType::Half:
      return &kFloat16;
    case ScalarType::BFloat16:
      return &kBFloat16;
    case ScalarType::Float8_e5m2:
      return &kFloat8E5M2;
    case ScalarType::Float8_e4m3fn:
      return &kFloat8E4M3Fn;
    case ScalarType::Float8_e5m2fnuz:
      return &kFloat8E5M2Fnuz;
    case ScalarType::Float8_e4m3fnuz:
      return &kFloat8E4M3Fnuz;
    default:
      return nullptr;
  }
}

std::string format_small_float(const SmallFloatFormat& f, uint32_t bits) {
  const double value = decode_small_float(f, bits);
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  if (value == std::trunc(value) && std::fabs(value) < 1e15) return format_number(value);
  char buf[64];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, value);
    Result<uint32_t> back = encode_small_float(f, std::strtod(buf, nullptr));
    if (back.ok() && *back == bits) break;
  }
  return buf;
}

}  // namespace devplan::harness
