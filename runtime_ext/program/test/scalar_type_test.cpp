#include <gtest/gtest.h>
#include <runtime_ext/program/scalar_type.h>

namespace devplan {
namespace {

struct Expected {
  ScalarType type;
  int raw;
  size_t size;
  const char* name;
};

const Expected kAll[] = {
    {ScalarType::Byte, 0, 1, "uint8"},
    {ScalarType::Char, 1, 1, "int8"},
    {ScalarType::Short, 2, 2, "int16"},
    {ScalarType::Int, 3, 4, "int32"},
    {ScalarType::Long, 4, 8, "int64"},
    {ScalarType::Half, 5, 2, "float16"},
    {ScalarType::Float, 6, 4, "float32"},
    {ScalarType::Double, 7, 8, "float64"},
    {ScalarType::ComplexHalf, 8, 4, "complex32"},
    {ScalarType::ComplexFloat, 9, 8, "complex64"},
    {ScalarType::ComplexDouble, 10, 16, "complex128"},
    {ScalarType::Bool, 11, 1, "bool"},
    {ScalarType::QInt8, 12, 1, "qint8"},
    {ScalarType::QUInt8, 13, 1, "quint8"},
    {ScalarType::QInt32, 14, 4, "qint32"},
    {ScalarType::BFloat16, 15, 2, "bfloat16"},
    {ScalarType::QUInt4x2, 16, 1, "quint4x2"},
    {ScalarType::QUInt2x4, 17, 1, "quint2x4"},
    {ScalarType::Bits1x8, 18, 1, "bits1x8"},
    {ScalarType::Bits2x4, 19, 1, "bits2x4"},
    {ScalarType::Bits4x2, 20, 1, "bits4x2"},
    {ScalarType::Bits8, 21, 1, "bits8"},
    {ScalarType::Bits16, 22, 2, "bits16"},
    {ScalarType::Float8_e5m2, 23, 1, "float8_e5m2"},
    {ScalarType::Float8_e4m3fn, 24, 1, "float8_e4m3fn"},
    {ScalarType::Float8_e5m2fnuz, 25, 1, "float8_e5m2fnuz"},
    {ScalarType::Float8_e4m3fnuz, 26, 1, "float8_e4m3fnuz"},
    {ScalarType::UInt16, 27, 2, "uint16"},
    {ScalarType::UInt32, 28, 4, "uint32"},
    {ScalarType::UInt64, 29, 8, "uint64"},
};

TEST(ScalarTypeTest, EveryTypeHasItsFileValueSizeAndName) {
  for (const Expected& e : kAll) {
    EXPECT_EQ(static_cast<int>(e.type), e.raw) << e.name;
    EXPECT_EQ(element_size(e.type), e.size) << e.name;
    EXPECT_EQ(scalar_type_name(e.type), e.name);
    Result<ScalarType> parsed = parse_scalar_type(e.name);
    ASSERT_TRUE(parsed.ok()) << e.name;
    EXPECT_EQ(*parsed, e.type) << e.name;
  }
}

TEST(ScalarTypeTest, ValuesOutsideTheEnumHaveNoSizeAndAnUnknownName) {
  // ExecuTorch's isValid takes 0..29; every one of them is in the table (kAll has 30 rows).
  EXPECT_EQ(sizeof(kAll) / sizeof(kAll[0]), 30u);
  for (int raw : {30, 31, 64, 127, -1, -128}) {
    const ScalarType t = static_cast<ScalarType>(raw);
    EXPECT_EQ(element_size(t), 0u) << raw;
    EXPECT_EQ(scalar_type_name(t), "unknown(" + std::to_string(raw) + ")");
  }
}

TEST(ScalarTypeTest, ParseRejectsAnythingElse) {
  for (const char* bad : {"", "float", "Float32", "FLOAT", "float32 ", "unknown(8)", "int"}) {
    Result<ScalarType> r = parse_scalar_type(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.code(), ErrorCode::InvalidArgument);
    EXPECT_EQ(r.error().message(), std::string("unknown dtype '") + bad + "'");
  }
}

}  // namespace
}  // namespace devplan
