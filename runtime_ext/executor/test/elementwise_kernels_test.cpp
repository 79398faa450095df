#include <runtime_ext/executor/kernels/builtin_kernels.h>

#include <gtest/gtest.h>

#include "host_tensors.h"

namespace devplan {
namespace {

using testing::HostTensor;

class ElementwiseKernelsTest : public ::testing::Test {
 protected:
  std::vector<int32_t> indices_ = {10, 11, 12, 13, 13};
  KernelContext ctx(const char* op) {
    KernelContext c;
    c.op_name = op;
    c.value_indices = Span<const int32_t>(indices_.data(), indices_.size());
    return c;
  }
  Error add(EValue& a, EValue& b, EValue& alpha, EValue& out) {
    KernelContext c = ctx("aten::add.out");
    EValue* args[] = {&a, &b, &alpha, &out, &out};
    return add_out_kernel(c, Span<EValue*>(args, 5));
  }
  Error mul(EValue& a, EValue& b, EValue& out) {
    KernelContext c = ctx("aten::mul.out");
    EValue* args[] = {&a, &b, &out, &out};
    return mul_out_kernel(c, Span<EValue*>(args, 4));
  }
};

TEST_F(ElementwiseKernelsTest, AddFloatWithAlpha) {
  HostTensor<float> a({2, 2}, {1, 2, 3, 4}), b({2, 2}, {10, 20, 30, 40}), out({2, 2}, {0, 0, 0, 0});
  EValue alpha = EValue::from_double(0.5);
  ASSERT_TRUE(add(a.value, b.value, alpha, out.value).ok());
  EXPECT_EQ(out.data, (std::vector<float>{6, 12, 18, 24}));
}

TEST_F(ElementwiseKernelsTest, AddInt32AndInt64) {
  HostTensor<int32_t> a({3}, {1, -2, 3}), b({3}, {4, 5, 6}), out({3}, {0, 0, 0});
  EValue alpha = EValue::from_int(2);
  ASSERT_TRUE(add(a.value, b.value, alpha, out.value).ok());
  EXPECT_EQ(out.data, (std::vector<int32_t>{9, 8, 15}));
  HostTensor<int64_t> c({2}, {int64_t{1} << 40, 7}), d({2}, {1, -7}), o({2}, {0, 0});
  EValue one = EValue::from_int(1);
  ASSERT_TRUE(add(c.value, d.value, one, o.value).ok());
  EXPECT_EQ(o.data, (std::vector<int64_t>{(int64_t{1} << 40) + 1, 0}));
}

TEST_F(ElementwiseKernelsTest, MulBroadcastsRowAndColumn) {
  HostTensor<float> a({2, 1}, {2, 3}), b({3}, {1, 10, 100}), out({2, 3}, std::vector<float>(6));
  ASSERT_TRUE(mul(a.value, b.value, out.value).ok());
  EXPECT_EQ(out.data, (std::vector<float>{2, 20, 200, 3, 30, 300}));
}

TEST_F(ElementwiseKernelsTest, MulInt64AndDouble) {
  HostTensor<int64_t> a({2}, {3, -4}), b({2}, {5, 6}), out({2}, {0, 0});
  ASSERT_TRUE(mul(a.value, b.value, out.value).ok());
  EXPECT_EQ(out.data, (std::vector<int64_t>{15, -24}));
  HostTensor<double> x({}, {1.5}), y({2}, {2, 4}), z({2}, {0, 0});
  ASSERT_TRUE(mul(x.value, y.value, z.value).ok());
  EXPECT_EQ(z.data, (std::vector<double>{3, 6}));
}

TEST_F(ElementwiseKernelsTest, DtypeMismatchNamesTheValue) {
  HostTensor<float> a({2}, {1, 2}), out({2}, {0, 0});
  HostTensor<int32_t> b({2}, {1, 2});
  EValue alpha = EValue::from_int(1);
  Error e = add(a.value, b.value, alpha, out.value);
  EXPECT_EQ(e.code(), ErrorCode::InvalidType);
  EXPECT_EQ(e.message(), "aten::add.out: value 11: dtype int32 differs from out's float32");
}

TEST_F(ElementwiseKernelsTest, ShapeErrors) {
  HostTensor<float> a({2, 3}, std::vector<float>(6)), b({2}, {1, 2}),
      out({2, 3}, std::vector<float>(6));
  Error e = mul(a.value, b.value, out.value);
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(e.message(), "aten::mul.out: shapes [2, 3] and [2] do not broadcast");
  HostTensor<float> c({3}, {1, 2, 3}), small_out({3, 1}, {0, 0, 0});
  e = mul(a.value, c.value, small_out.value);
  EXPECT_EQ(e.message(), "aten::mul.out: value 12: out has shape [3, 1] but the result has [2, 3]");
}

TEST_F(ElementwiseKernelsTest, UnsupportedDtypeAndBadAlpha) {
  HostTensor<float> a({1}, {1}), b({1}, {1}), out({1}, {0});
  a.value.tensor.dtype = b.value.tensor.dtype = out.value.tensor.dtype = ScalarType::Half;
  EValue alpha = EValue::from_int(1);
  Error e = add(a.value, b.value, alpha, out.value);
  EXPECT_EQ(e.code(), ErrorCode::NotSupported);
  EXPECT_EQ(
      e.message(),
      "aten::add.out: value 13: dtype float16 is not supported (float32, float64, int32, int64)");
  HostTensor<int32_t> i({1}, {1}), j({1}, {1}), k({1}, {0});
  EValue half = EValue::from_double(0.5);
  e = add(i.value, j.value, half, k.value);
  EXPECT_EQ(e.message(), "aten::add.out: value 12: alpha must be integral for integer tensors");
  EValue text;
  text.tag = ValueTag::String;
  e = add(i.value, j.value, text, k.value);
  EXPECT_EQ(e.code(), ErrorCode::InvalidType);
  EXPECT_EQ(e.message(), "aten::add.out: value 12: alpha must be Int or Double, found String");
}

TEST_F(ElementwiseKernelsTest, DeviceTensorIsRefusedWithoutTouchingIt) {
  HostTensor<float> a({2}, {1, 2}), b({2}, {3, 4}), out({2}, {0, 0});
  a.value.tensor.device = Device::cuda(0);
  a.value.tensor.data = reinterpret_cast<void*>(0x10);  // would crash if dereferenced
  EValue alpha = EValue::from_int(1);
  Error e = add(a.value, b.value, alpha, out.value);
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(
      e.message(),
      "aten::add.out: value 10: tensor is on cuda:0; a host kernel cannot read device memory");
  EXPECT_EQ(out.data, (std::vector<float>{0, 0}));
}

TEST_F(ElementwiseKernelsTest, WrongArgumentCountAndTags) {
  HostTensor<float> a({1}, {1});
  KernelContext c = ctx("aten::mul.out");
  EValue* two[] = {&a.value, &a.value};
  Error e = mul_out_kernel(c, Span<EValue*>(two, 2));
  EXPECT_EQ(e.code(), ErrorCode::InvalidProgram);
  EXPECT_EQ(e.message(), "aten::mul.out: expected 4 arguments, got 2");
  EValue i = EValue::from_int(3);
  EValue* args[] = {&a.value, &i, &a.value, &a.value};
  e = mul_out_kernel(c, Span<EValue*>(args, 4));
  EXPECT_EQ(e.code(), ErrorCode::InvalidType);
  EXPECT_EQ(e.message(), "aten::mul.out: value 11: expected a Tensor, found Int");
}

TEST_F(ElementwiseKernelsTest, ZeroElementTensorsAreFine) {
  HostTensor<float> a({0}, {}), b({0}, {}), out({0}, {});
  ASSERT_TRUE(mul(a.value, b.value, out.value).ok());
}

TEST(ElementwiseAlphaTest, IntegerAlphaIsExactAndHugeDoubleAlphaIsRefused) {
  std::vector<int32_t> indices = {0, 1, 2, 3, 3};
  KernelContext ctx;
  ctx.op_name = "aten::add.out";
  ctx.value_indices = Span<const int32_t>(indices.data(), indices.size());
  testing::HostTensor<int64_t> a({1}, {1}), b({1}, {1}), out({1}, {0});
  EValue alpha = EValue::from_int(INT64_MAX);
  EValue* args[] = {&a.value, &b.value, &alpha, &out.value, &out.value};
  ASSERT_TRUE(add_out_kernel(ctx, Span<EValue*>(args, 5)).ok());
  EXPECT_EQ(out.data[0], INT64_MIN);  // 1 + INT64_MAX wraps
  EValue huge = EValue::from_double(1e30);
  args[2] = &huge;
  Error e = add_out_kernel(ctx, Span<EValue*>(args, 5));
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(e.message(), "aten::add.out: value 2: alpha must be integral for integer tensors");
}

TEST_F(ElementwiseKernelsTest, ArgumentCountBoundsWithAndWithoutTheReturnedValue) {
  HostTensor<float> a({2}, {1, 2}), b({2}, {3, 4}), out({2}, {0, 0});
  // mul: self, other, out (3) or with the returned value (4); 5 is one too many.
  KernelContext c = ctx("aten::mul.out");
  EValue* three[] = {&a.value, &b.value, &out.value};
  Error e = mul_out_kernel(c, Span<EValue*>(three, 3));
  ASSERT_TRUE(e.ok()) << e;
  EXPECT_EQ(out.data, (std::vector<float>{3, 8}));
  EValue* five[] = {&a.value, &b.value, &out.value, &out.value, &out.value};
  e = mul_out_kernel(c, Span<EValue*>(five, 5));
  EXPECT_EQ(e.code(), ErrorCode::InvalidProgram);
  EXPECT_EQ(e.message(), "aten::mul.out: expected 4 arguments, got 5");
  // add: self, other, alpha, out (4) or with the returned value (5); 6 is one too many.
  KernelContext ca = ctx("aten::add.out");
  EValue alpha = EValue::from_int(2);
  EValue* four[] = {&a.value, &b.value, &alpha, &out.value};
  e = add_out_kernel(ca, Span<EValue*>(four, 4));
  ASSERT_TRUE(e.ok()) << e;
  EXPECT_EQ(out.data, (std::vector<float>{7, 10}));
  EValue* six[] = {&a.value, &b.value, &alpha, &out.value, &out.value, &out.value};
  e = add_out_kernel(ca, Span<EValue*>(six, 6));
  EXPECT_EQ(e.code(), ErrorCode::InvalidProgram);
  EXPECT_EQ(e.message(), "aten::add.out: expected 5 arguments, got 6");
}

TEST_F(ElementwiseKernelsTest, OutNeedsEveryByteOfItsShape) {
  HostTensor<float> a({2}, {1, 2}), b({2}, {3, 4}), out({2}, {0, 0});
  out.value.tensor.nbytes = 4;  // float32[2] needs 8
  Error e = mul(a.value, b.value, out.value);
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(e.message(), "aten::mul.out: value 12: tensor has no memory for its shape");
  EXPECT_EQ(out.data, (std::vector<float>{0, 0}));
  out.value.tensor.nbytes = 8;
  e = mul(a.value, b.value, out.value);
  ASSERT_TRUE(e.ok()) << e;
  EXPECT_EQ(out.data, (std::vector<float>{3, 8}));
}

// A Double alpha for integer tensors: any whole number in int64's range, negative ones too;
// -2^63 is the lowest accepted, 2^63 the first refused.
TEST_F(ElementwiseKernelsTest, WholeDoubleAlphaForIntegersSpansInt64sRange) {
  HostTensor<int64_t> a({2}, {10, -10}), b({2}, {3, 4}), out({2}, {0, 0});
  EValue minus_two = EValue::from_double(-2.0);
  ASSERT_TRUE(add(a.value, b.value, minus_two, out.value).ok());
  EXPECT_EQ(out.data, (std::vector<int64_t>{4, -18}));
  HostTensor<int64_t> zero({1}, {0}), one({1}, {1}), o({1}, {0});
  EValue lowest = EValue::from_double(-9223372036854775808.0);
  ASSERT_TRUE(add(zero.value, one.value, lowest, o.value).ok());
  EXPECT_EQ(o.data[0], INT64_MIN);
  EValue past = EValue::from_double(9223372036854775808.0);
  const Error e = add(zero.value, one.value, past, o.value);
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(e.message(), "aten::add.out: value 12: alpha must be integral for integer tensors");
}

// With the returned value as its own EValue (not the out argument itself), the kernels copy
// the result into it.
TEST_F(ElementwiseKernelsTest, ADistinctReturnedValueReceivesTheResult) {
  HostTensor<float> a({2}, {1, 2}), b({2}, {3, 4}), out({2}, {0, 0});
  EValue returned;
  KernelContext c = ctx("aten::mul.out");
  EValue* mul_args[] = {&a.value, &b.value, &out.value, &returned};
  ASSERT_TRUE(mul_out_kernel(c, Span<EValue*>(mul_args, 4)).ok());
  ASSERT_TRUE(returned.is_tensor());
  EXPECT_EQ(returned.tensor.data, out.value.tensor.data);
  EXPECT_EQ(returned.tensor.sizes, out.value.tensor.sizes);
  EValue added;
  EValue alpha = EValue::from_int(1);
  KernelContext ca = ctx("aten::add.out");
  EValue* add_args[] = {&a.value, &b.value, &alpha, &out.value, &added};
  ASSERT_TRUE(add_out_kernel(ca, Span<EValue*>(add_args, 5)).ok());
  EXPECT_EQ(out.data, (std::vector<float>{4, 6}));
  ASSERT_TRUE(added.is_tensor());
  EXPECT_EQ(added.tensor.data, out.value.tensor.data);
}

}  // namespace
}  // namespace devplan
