// A stand-in for runtime_ext/program/scalar_type.cpp, compiled into devplan_planning only while
// that file does not exist yet (see CMakeLists.txt). It implements the functions declared in
// runtime_ext/program/scalar_type.h with the element sizes of the program format. Delete this
// file once runtime_ext/program/scalar_type.cpp has landed.
#include <runtime_ext/program/scalar_type.h>

namespace devplan {

namespace {

struct Entry {
  ScalarType type;
  const char* name;
  size_t size;
};

constexpr Entry kEntries[] = {
    {ScalarType::Byte, "uint8", 1},
    {ScalarType::Char, "int8", 1},
    {ScalarType::Short, "int16", 2},
    {ScalarType::Int, "int32", 4},
    {ScalarType::Long, "int64", 8},
    {ScalarType::Half, "float16", 2},
    {ScalarType::Float, "float32", 4},
    {ScalarType::Double, "float64", 8},
    {ScalarType::Bool, "bool", 1},
    {ScalarType::QInt8, "qint8", 1},
    {ScalarType::QUInt8, "quint8", 1},
    {ScalarType::QInt32, "qint32", 4},
    {ScalarType::BFloat16, "bfloat16", 2},
    {ScalarType::QUInt4x2, "quint4x2", 1},
    {ScalarType::QUInt2x4, "quint2x4", 1},
    {ScalarType::Bits16, "bits16", 2},
    {ScalarType::Float8_e5m2, "float8_e5m2", 1},
    {ScalarType::Float8_e4m3fn, "float8_e4m3fn", 1},
    {ScalarType::Float8_e5m2fnuz, "float8_e5m2fnuz", 1},
    {ScalarType::Float8_e4m3fnuz, "float8_e4m3fnuz", 1},
    {ScalarType::UInt16, "uint16", 2},
    {ScalarType::UInt32, "uint32", 4},
    {ScalarType::UInt64, "uint64", 8},
};

}  // namespace

size_t element_size(ScalarType type) {
  for (const Entry& e : kEntries) {
    if (e.type == type) return e.size;
  }
  return 0;
}

std::string scalar_type_name(ScalarType type) {
  for (const Entry& e : kEntries) {
    if (e.type == type) return e.name;
  }
  return "unknown(" + std::to_string(static_cast<int>(type)) + ")";
}

bool parse_scalar_type(const std::string& name, ScalarType* out) {
  for (const Entry& e : kEntries) {
    if (name == e.name) {
      *out = e.type;
      return true;
    }
  }
  return false;
}

}  // namespace devplan
