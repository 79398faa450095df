#include <harness/commands/tensor_values.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

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

bool is_supported(ScalarType t) {
  switch (t) {
    case ScalarType::Float:
    case ScalarType::Double:
    case ScalarType::Char:
    case ScalarType::Short:
    case ScalarType::Int:
    case ScalarType::Long:
    case ScalarType::Byte:
    case ScalarType::Bool:
      return true;
    default:
      return false;
  }
}

Error unsupported(ScalarType t) {
  return Error(ErrorCode::NotSupported,
               "values of dtype " + scalar_type_name(t) + " cannot be given or printed as numbers");
}

}  // namespace

// Whole numbers below 1e15 in plain digits ("20", not "2e+01", which %g picks at low
// precision); "" for anything else.
static std::string whole_number_text(double value) {
  if (!(std::fabs(value) < 1e15) || value != std::trunc(value)) return "";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.0f", value);
  return buf;
}

std::string format_number(double value) {
  std::string whole = whole_number_text(value);
  if (!whole.empty()) return whole;
  char buf[64];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, value);
    if (std::strtod(buf, nullptr) == value) break;
  }
  return buf;
}

std::string format_float(float value) {
  std::string whole = whole_number_text(static_cast<double>(value));
  if (!whole.empty()) return whole;
  char buf[64];
  for (int precision = 1; precision <= 9; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, static_cast<double>(value));
    if (std::strtof(buf, nullptr) == value) break;
  }
  return buf;
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
    errno = 0;
    char* end = nullptr;
    const double v = std::strtod(item.c_str(), &end);
    if (item.empty() || *end != '\0' || errno == ERANGE ||
        std::isspace(static_cast<unsigned char>(item[0]))) {
      return Error(ErrorCode::InvalidArgument, "'" + item + "' in '" + text + "' is not a number");
    }
    values.push_back(v);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return values;
}

Result<std::vector<uint8_t>> encode_values(const std::vector<double>& values, ScalarType dtype,
                                           int64_t numel) {
  if (!is_supported(dtype)) return unsupported(dtype);
  if (values.size() != 1 && static_cast<int64_t>(values.size()) != numel) {
    return Error(ErrorCode::InvalidArgument, std::to_string(values.size()) + " values given for " +
                                                 std::to_string(numel) +
                                                 " elements (give one value to fill them all)");
  }
  std::vector<uint8_t> bytes(static_cast<size_t>(numel) * element_size(dtype));
  for (int64_t i = 0; i < numel; ++i) {
    const double v = values.size() == 1 ? values[0] : values[static_cast<size_t>(i)];
    const size_t k = static_cast<size_t>(i);
    switch (dtype) {
      case ScalarType::Float:
        put<float>(bytes, k, static_cast<float>(v));
        break;
      case ScalarType::Double:
        put<double>(bytes, k, v);
        break;
      case ScalarType::Char:
        put<int8_t>(bytes, k, static_cast<int8_t>(v));
        break;
      case ScalarType::Short:
        put<int16_t>(bytes, k, static_cast<int16_t>(v));
        break;
      case ScalarType::Int:
        put<int32_t>(bytes, k, static_cast<int32_t>(v));
        break;
      case ScalarType::Long:
        put<int64_t>(bytes, k, static_cast<int64_t>(v));
        break;
      case ScalarType::Byte:
        put<uint8_t>(bytes, k, static_cast<uint8_t>(v));
        break;
      default:
        put<uint8_t>(bytes, k, v != 0 ? 1 : 0);
        break;  // Bool
    }
  }
  return bytes;
}

Result<std::vector<std::string>> decode_values(const std::vector<uint8_t>& bytes,
                                               ScalarType dtype) {
  if (!is_supported(dtype)) return unsupported(dtype);
  const size_t n = bytes.size() / element_size(dtype);
  std::vector<std::string> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    switch (dtype) {
      case ScalarType::Float:
        out.push_back(format_float(get<float>(bytes, i)));
        break;
      case ScalarType::Double:
        out.push_back(format_number(get<double>(bytes, i)));
        break;
      case ScalarType::Char:
        out.push_back(std::to_string(get<int8_t>(bytes, i)));
        break;
      case ScalarType::Short:
        out.push_back(std::to_string(get<int16_t>(bytes, i)));
        break;
      case ScalarType::Int:
        out.push_back(std::to_string(get<int32_t>(bytes, i)));
        break;
      case ScalarType::Long:
        out.push_back(std::to_string(get<int64_t>(bytes, i)));
        break;
      case ScalarType::Byte:
        out.push_back(std::to_string(get<uint8_t>(bytes, i)));
        break;
      default:
        out.emplace_back(get<uint8_t>(bytes, i) ? "true" : "false");
        break;
    }
  }
  return out;
}

}  // namespace devplan::harness
