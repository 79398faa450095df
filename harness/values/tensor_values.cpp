#include <harness/values/tensor_values.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include <harness/values/small_float.h>

namespace devplan::harness {
namespace {

template <typename T>
void put(std::vector<uint8_t>& bytes, size_t i, T v) {
  std::memcpy(bytes.data() + i * sizeof(T), &v, sizeof(T));
}

template <typename T>
T get(const std::vector<uint8_t>& bytes, size_t i) {
  T v;
  std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
  return v;
}

// Every dtype whose elements are numbers of whole bytes: all of the schema's but the packed
// sub-byte ones (quint4x2, quint2x4).
Error check_supported(ScalarType t) {
  if (t == ScalarType::QUInt4x2 || t == ScalarType::QUInt2x4) {
    return Error(ErrorCode::NotSupported,
                 "values of dtype " + scalar_type_name(t) +
                     " are packed several to a byte and cannot be given or printed as numbers");
  }
  const bool complex = t == ScalarType::ComplexHalf || t == ScalarType::ComplexFloat ||
                       t == ScalarType::ComplexDouble;
  const bool bits = t == ScalarType::Bits1x8 || t == ScalarType::Bits2x4 ||
                    t == ScalarType::Bits4x2 || t == ScalarType::Bits8;
  if (element_size(t) == 0 || complex || bits) {
    return Error(ErrorCode::NotSupported, "values of dtype " + scalar_type_name(t) +
                                              " cannot be given or printed as numbers");
  }
  return Error::success();
}

// Writes `v` as element `k` of an integer dtype: a whole number within T's range.
template <typename T>
Error put_integer(std::vector<uint8_t>& bytes, size_t k, double v, ScalarType dtype) {
  const double low = static_cast<double>(std::numeric_limits<T>::min());
  // 2^bits for unsigned types and 2^(bits-1) for signed ones, exactly (T's max + 1).
  const double high_exclusive = std::ldexp(1.0, std::numeric_limits<T>::digits);
  if (!(v == std::trunc(v)) || v < low || v >= high_exclusive) {
    return Error(ErrorCode::InvalidArgument,
                 format_number(v) + " is not a value of " + scalar_type_name(dtype) + " (whole " +
                     "numbers from " + std::to_string(std::numeric_limits<T>::min()) + " to " +
                     std::to_string(std::numeric_limits<T>::max()) + ")");
  }
  put<T>(bytes, k, static_cast<T>(v));
  return Error::success();
}

Error put_value(std::vector<uint8_t>& bytes, size_t k, double v, ScalarType dtype) {
  if (const SmallFloatFormat* format = small_float_format_of(dtype)) {
    DEVPLAN_ASSIGN_OR_RETURN(uint32_t bits, encode_small_float(*format, v));
    if (element_size(dtype) == 2) {
      put<uint16_t>(bytes, k, static_cast<uint16_t>(bits));
    } else {
      put<uint8_t>(bytes, k, static_cast<uint8_t>(bits));
    }
    return Error::success();
  }
  switch (dtype) {
    case ScalarType::Float:
      put<float>(bytes, k, static_cast<float>(v));
      return Error::success();
    case ScalarType::Double:
      put<double>(bytes, k, v);
      return Error::success();
    case ScalarType::Bool:
      put<uint8_t>(bytes, k, v != 0 ? 1 : 0);
      return Error::success();
    case ScalarType::Char:
    case ScalarType::QInt8:
      return put_integer<int8_t>(bytes, k, v, dtype);
    case ScalarType::Byte:
    case ScalarType::QUInt8:
      return put_integer<uint8_t>(bytes, k, v, dtype);
    case ScalarType::Short:
      return put_integer<int16_t>(bytes, k, v, dtype);
    case ScalarType::UInt16:
    case ScalarType::Bits16:
      return put_integer<uint16_t>(bytes, k, v, dtype);
    case ScalarType::Int:
    case ScalarType::QInt32:
      return put_integer<int32_t>(bytes, k, v, dtype);
    case ScalarType::UInt32:
      return put_integer<uint32_t>(bytes, k, v, dtype);
    case ScalarType::Long:
      return put_integer<int64_t>(bytes, k, v, dtype);
    case ScalarType::UInt64:
      return put_integer<uint64_t>(bytes, k, v, dtype);
    default:
      return check_supported(dtype);
  }
}

std::string value_text(const std::vector<uint8_t>& bytes, size_t i, ScalarType dtype) {
  if (const SmallFloatFormat* format = small_float_format_of(dtype)) {
    const uint32_t bits =
        element_size(dtype) == 2 ? get<uint16_t>(bytes, i) : get<uint8_t>(bytes, i);
    return format_small_float(*format, bits);
  }
  switch (dtype) {
    case ScalarType::Float:
      return format_float(get<float>(bytes, i));
    case ScalarType::Double:
      return format_number(get<double>(bytes, i));
    case ScalarType::Bool:
      return get<uint8_t>(bytes, i) ? "true" : "false";
    case ScalarType::Char:
    case ScalarType::QInt8:
      return std::to_string(get<int8_t>(bytes, i));
    case ScalarType::Byte:
    case ScalarType::QUInt8:
      return std::to_string(get<uint8_t>(bytes, i));
    case ScalarType::Short:
      return std::to_string(get<int16_t>(bytes, i));
    case ScalarType::UInt16:
    case ScalarType::Bits16:
      return std::to_string(get<uint16_t>(bytes, i));
    case ScalarType::Int:
    case ScalarType::QInt32:
      return std::to_string(get<int32_t>(bytes, i));
    case ScalarType::UInt32:
      return std::to_string(get<uint32_t>(bytes, i));
    case ScalarType::Long:
      return std::to_string(get<int64_t>(bytes, i));
    default:
      return std::to_string(get<uint64_t>(bytes, i));  // UInt64
  }
}

}  // namespace

bool is_nan_text(const std::string& text) { return text == "nan" || text == "-nan"; }

bool is_floating_dtype(ScalarType dtype) {
  return dtype == ScalarType::Float || dtype == ScalarType::Double ||
         small_float_format_of(dtype) != nullptr;
}

Result<std::vector<std::vector<double>>> parse_run_inputs(const std::vector<std::string>& given,
                                                          size_t num_inputs,
                                                          const std::string& method) {
  if (given.size() > num_inputs) {
    return Error(ErrorCode::InvalidArgument, std::to_string(given.size()) +
                                                 " --input given but method '" + method + "' has " +
                                                 std::to_string(num_inputs) + " inputs");
  }
  std::vector<std::vector<double>> values(num_inputs, std::vector<double>{1.0});
  for (size_t i = 0; i < given.size(); ++i) {
    Result<std::vector<double>> parsed = parse_number_list(given[i]);
    if (!parsed.ok()) return parsed.error().with_context("--input " + std::to_string(i));
    values[i] = std::move(parsed).value();
  }
  return values;
}

Result<std::vector<double>> parse_number_list(const std::string& text) {
  std::vector<double> values;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string item =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const std::string not_a_number = "'" + item + "' in '" + text + "' is not a number";
    if (item == "true" || item == "false") {  // how bool elements are printed
      values.push_back(item == "true" ? 1 : 0);
    } else {
      errno = 0;
      char* end = nullptr;
      const double v = std::strtod(item.c_str(), &end);
      if (item.empty() || *end != '\0' || std::isspace(static_cast<unsigned char>(item[0]))) {
        return Error(ErrorCode::InvalidArgument, not_a_number);
      }
      // strtod also says ERANGE for a subnormal result, which is exact enough to keep (it is
      // how the smallest doubles are printed); only overflow and underflow to 0 are refused.
      if (errno == ERANGE && std::isinf(v)) {
        return Error(ErrorCode::InvalidArgument,
                     not_a_number + " (too large for a double; infinity is written inf)");
      }
      if (errno == ERANGE && v == 0) {
        return Error(ErrorCode::InvalidArgument,
                     not_a_number + " (too small for a double; 0 is written 0)");
      }
      values.push_back(v);
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return values;
}

Result<std::vector<uint8_t>> encode_values(const std::vector<double>& values, ScalarType dtype,
                                           int64_t numel) {
  if (Error e = check_supported(dtype); !e.ok()) return e;
  if (values.size() != 1 && static_cast<int64_t>(values.size()) != numel) {
    return Error(ErrorCode::InvalidArgument, std::to_string(values.size()) + " values given for " +
                                                 std::to_string(numel) +
                                                 " elements (give one value to fill them all)");
  }
  std::vector<uint8_t> bytes(static_cast<size_t>(numel) * element_size(dtype));
  for (int64_t i = 0; i < numel; ++i) {
    const double v = values.size() == 1 ? values[0] : values[static_cast<size_t>(i)];
    if (Error e = put_value(bytes, static_cast<size_t>(i), v, dtype); !e.ok()) {
      return values.size() == 1 ? e : e.with_context("element " + std::to_string(i));
    }
  }
  return bytes;
}

Result<std::vector<std::string>> decode_values(const std::vector<uint8_t>& bytes,
                                               ScalarType dtype) {
  if (Error e = check_supported(dtype); !e.ok()) return e;
  const size_t n = bytes.size() / element_size(dtype);
  std::vector<std::string> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) out.push_back(value_text(bytes, i, dtype));
  return out;
}

Error check_decodable(ScalarType dtype) { return check_supported(dtype); }

std::string element_text(const std::vector<uint8_t>& bytes, size_t i, ScalarType dtype) {
  return value_text(bytes, i, dtype);
}

double element_number(const std::vector<uint8_t>& bytes, size_t i, ScalarType dtype) {
  if (const SmallFloatFormat* format = small_float_format_of(dtype)) {
    const uint32_t bits =
        element_size(dtype) == 2 ? get<uint16_t>(bytes, i) : get<uint8_t>(bytes, i);
    return decode_small_float(*format, bits);
  }
  switch (dtype) {
    case ScalarType::Float:
      return get<float>(bytes, i);
    case ScalarType::Double:
      return get<double>(bytes, i);
    case ScalarType::Bool:
      return get<uint8_t>(bytes, i) ? 1.0 : 0.0;
    case ScalarType::Char:
    case ScalarType::QInt8:
      return get<int8_t>(bytes, i);
    case ScalarType::Byte:
    case ScalarType::QUInt8:
      return get<uint8_t>(bytes, i);
    case ScalarType::Short:
      return get<int16_t>(bytes, i);
    case ScalarType::UInt16:
    case ScalarType::Bits16:
      return get<uint16_t>(bytes, i);
    case ScalarType::Int:
    case ScalarType::QInt32:
      return get<int32_t>(bytes, i);
    case ScalarType::UInt32:
      return get<uint32_t>(bytes, i);
    case ScalarType::Long:
      return static_cast<double>(get<int64_t>(bytes, i));
    default:
      return static_cast<double>(get<uint64_t>(bytes, i));  // UInt64
  }
}

Result<std::vector<std::string>> output_texts(const OutputValues& output) {
  if (output.tag != ValueTag::Tensor) return output.values;
  return decode_values(output.bytes, output.dtype);
}

}  // namespace devplan::harness
