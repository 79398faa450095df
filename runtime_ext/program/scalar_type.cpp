#include <runtime_ext/program/scalar_type.h>

namespace devplan {
namespace {

struct ScalarTypeEntry {
  ScalarType type;
  size_t size;
  const char* name;
};

constexpr ScalarTypeEntry kScalarTypes[] = {
    {ScalarType::Byte, 1, "uint8"},
    {ScalarType::Char, 1, "int8"},
    {ScalarType::Short, 2, "int16"},
    {ScalarType::Int, 4, "int32"},
    {ScalarType::Long, 8, "int64"},
    {ScalarType::Half, 2, "float16"},
    {ScalarType::Float, 4, "float32"},
    {ScalarType::Double, 8, "float64"},
    {ScalarType::ComplexHalf, 4, "complex32"},
    {ScalarType::ComplexFloat, 8, "complex64"},
    {ScalarType::ComplexDouble, 16, "complex128"},
    {ScalarType::Bool, 1, "bool"},
    {ScalarType::QInt8, 1, "qint8"},
    {ScalarType::QUInt8, 1, "quint8"},
    {ScalarType::QInt32, 4, "qint32"},
    {ScalarType::BFloat16, 2, "bfloat16"},
    {ScalarType::QUInt4x2, 1, "quint4x2"},
    {ScalarType::QUInt2x4, 1, "quint2x4"},
    {ScalarType::Bits1x8, 1, "bits1x8"},
    {ScalarType::Bits2x4, 1, "bits2x4"},
    {ScalarType::Bits4x2, 1, "bits4x2"},
    {ScalarType::Bits8, 1, "bits8"},
    {ScalarType::Bits16, 2, "bits16"},
    {ScalarType::Float8_e5m2, 1, "float8_e5m2"},
    {ScalarType::Float8_e4m3fn, 1, "float8_e4m3fn"},
    {ScalarType::Float8_e5m2fnuz, 1, "float8_e5m2fnuz"},
    {ScalarType::Float8_e4m3fnuz, 1, "float8_e4m3fnuz"},
    {ScalarType::UInt16, 2, "uint16"},
    {ScalarType::UInt32, 4, "uint32"},
    {ScalarType::UInt64, 8, "uint64"},
};

const ScalarTypeEntry* find_entry(ScalarType type) {
  for (const ScalarTypeEntry& entry : kScalarTypes) {
    if (entry.type == type) return &entry;
  }
  return nullptr;
}

}  // namespace

size_t element_size(ScalarType type) {
  const ScalarTypeEntry* entry = find_entry(type);
  return entry == nullptr ? 0 : entry->size;
}

std::string scalar_type_name(ScalarType type) {
  const ScalarTypeEntry* entry = find_entry(type);
  if (entry != nullptr) return entry->name;
  return "unknown(" + std::to_string(static_cast<int>(type)) + ")";
}

Result<ScalarType> parse_scalar_type(const std::string& name) {
  for (const ScalarTypeEntry& entry : kScalarTypes) {
    if (name == entry.name) return entry.type;
  }
  return Error(ErrorCode::InvalidArgument, "unknown dtype '" + name + "'");
}

}  // namespace devplan
