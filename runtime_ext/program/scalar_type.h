// ScalarType: tensor element types, with the values of the program file's ScalarType enum.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <runtime_ext/core/result.h>

namespace devplan {

enum class ScalarType : int8_t {
  Byte = 0,
  Char = 1,
  Short = 2,
  Int = 3,
  Long = 4,
  Half = 5,
  Float = 6,
  Double = 7,
  ComplexHalf = 8,   // complex types and the sub-byte bits types: ExecuTorch reads them (its
  ComplexFloat = 9,  // isValid is 0..29), though no kernel here computes with them
  ComplexDouble = 10,
  Bool = 11,
  QInt8 = 12,
  QUInt8 = 13,
  QInt32 = 14,
  BFloat16 = 15,
  QUInt4x2 = 16,
  QUInt2x4 = 17,
  Bits1x8 = 18,
  Bits2x4 = 19,
  Bits4x2 = 20,
  Bits8 = 21,
  Bits16 = 22,
  Float8_e5m2 = 23,
  Float8_e4m3fn = 24,
  Float8_e5m2fnuz = 25,
  Float8_e4m3fnuz = 26,
  UInt16 = 27,
  UInt32 = 28,
  UInt64 = 29,
};

// Bytes per element, or 0 when `type` is not one of the values above.
size_t element_size(ScalarType type);

// "float32", "int64", ...: the names the graph JSON format and reports use. "unknown(N)" for
// a value outside the enum.
std::string scalar_type_name(ScalarType type);

// Parses a name produced by scalar_type_name; InvalidArgument "unknown dtype '<name>'" for
// anything else.
Result<ScalarType> parse_scalar_type(const std::string& name);

}  // namespace devplan
