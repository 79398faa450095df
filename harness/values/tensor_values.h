// Conversions between the text form of tensor values on the command line ("1,2.5,-3") and
// tensor bytes, for `devplan run`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <harness/values/number_text.h>
#include <harness/values/output_values.h>
#include <runtime_ext/core/result.h>
#include <runtime_ext/program/scalar_type.h>

namespace devplan::harness {

// Parses comma-separated numbers ("true" and "false" read as 1 and 0, as bool elements are
// printed). InvalidArgument naming the bad item, and why for a number no double holds.
Result<std::vector<double>> parse_number_list(const std::string& text);

// The values of each of a method's `num_inputs` inputs from `devplan run --input` texts, in
// order: the parsed numbers, or {1} (ones) for inputs not given. InvalidArgument when more
// texts than inputs are given (naming `method`) or a text is not numbers (naming its --input).
Result<std::vector<std::vector<double>>> parse_run_inputs(const std::vector<std::string>& given,
                                                          size_t num_inputs,
                                                          const std::string& method);

// `numel` elements of `dtype` from `values`: one value fills every element, otherwise the
// counts must match. Every dtype of whole-byte elements is supported: the float types (float16,
// bfloat16 and float8 round to nearest, see small_float.h), the signed and unsigned integers
// and the quantized ones as their integers (qint8, quint8, qint32; bits16 as uint16), bool (0
// is false). InvalidArgument naming the element for an integer that is not whole or out of
// range (64-bit integers come as doubles: exact up to 2^53); NotSupported for quint4x2 and
// quint2x4 (packed several to a byte).
Result<std::vector<uint8_t>> encode_values(const std::vector<double>& values, ScalarType dtype,
                                           int64_t numel);

// The elements of `bytes` as numbers (shortest text that reads back the same value), for the
// dtypes encode_values takes.
Result<std::vector<std::string>> decode_values(const std::vector<uint8_t>& bytes, ScalarType dtype);

// NotSupported for the dtypes decode_values does not take (quint4x2, quint2x4, ...).
Error check_decodable(ScalarType dtype);
// Element `i` of `bytes` as decode_values gives it.
std::string element_text(const std::vector<uint8_t>& bytes, size_t i, ScalarType dtype);
// Element `i` of `bytes` as a double (bool 0 or 1; 64-bit integers rounded).
double element_number(const std::vector<uint8_t>& bytes, size_t i, ScalarType dtype);

// Every element of an output as text: a tensor's decoded from its bytes, another value's as
// formatted.
Result<std::vector<std::string>> output_texts(const OutputValues& output);

// Whether elements of `dtype` are floating-point numbers (float16 to float64, bfloat16, float8).
bool is_floating_dtype(ScalarType dtype);

// Whether `text` is a formatted NaN ("nan", or "-nan" for one with the sign bit set).
bool is_nan_text(const std::string& text);

}  // namespace devplan::harness
