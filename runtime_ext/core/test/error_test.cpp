#include <runtime_ext/core/error.h>
#include <runtime_ext/core/result.h>

#include <gtest/gtest.h>

#include <memory>

namespace devplan {
namespace {

TEST(ErrorTest, CodesKeepExecuTorchValues) {
  EXPECT_EQ(static_cast<uint32_t>(ErrorCode::Ok), 0x00u);
  EXPECT_EQ(static_cast<uint32_t>(ErrorCode::Internal), 0x01u);
  EXPECT_EQ(static_cast<uint32_t>(ErrorCode::InvalidState), 0x02u);
  EXPECT_EQ(static_cast<uint32_t>(ErrorCode::NotSupported), 0x10u);
  EXPECT_EQ(static_cast<uint32_t>(ErrorCode::NotImplemented), 0x11u);
  EXPECT_EQ(static_cast<uint32_t>(ErrorCode::InvalidArgument), 0x12u);
  EXPECT_EQ(static_cast<uint32_t>(ErrorCode::InvalidType), 0x13u);
  EXPECT_EQ(static_cast<uint32_t>(ErrorCode::OperatorMissing), 0x14u);
  EXPECT_EQ(static_cast<uint32_t>(ErrorCode::NotFound), 0x20u);
  EXPECT_EQ(static_cast<uint32_t>(ErrorCode::MemoryAllocationFailed), 0x21u);
  EXPECT_EQ(static_cast<uint32_t>(ErrorCode::AccessFailed), 0x22u);
  EXPECT_EQ(static_cast<uint32_t>(ErrorCode::InvalidProgram), 0x23u);
}

TEST(ErrorTest, DefaultIsOkWithoutMessage) {
  Error e;
  EXPECT_TRUE(e.ok());
  EXPECT_EQ(e.code(), ErrorCode::Ok);
  EXPECT_EQ(e.message(), "");
  EXPECT_EQ(e.to_string(), "Ok");
}

TEST(ErrorTest, ToStringJoinsNameAndMessage) {
  Error e(ErrorCode::InvalidProgram, "method 'forward': buffer_idx 0 is reserved");
  EXPECT_FALSE(e.ok());
  EXPECT_EQ(e.to_string(), "InvalidProgram: method 'forward': buffer_idx 0 is reserved");
}

TEST(ErrorTest, WithContextPrefixesMessage) {
  Error e(ErrorCode::NotFound, "no allocator");
  EXPECT_EQ(e.with_context("forward/buffer 1").message(), "forward/buffer 1: no allocator");
  EXPECT_EQ(Error(ErrorCode::Internal).with_context("ctx").message(), "ctx");
  EXPECT_TRUE(Error().with_context("ctx").ok());
  EXPECT_EQ(Error().with_context("ctx").message(), "");
}

TEST(ErrorTest, NamesAreTheEnumeratorNames) {
  EXPECT_STREQ(error_code_name(ErrorCode::Ok), "Ok");
  EXPECT_STREQ(error_code_name(ErrorCode::InvalidProgram), "InvalidProgram");
  EXPECT_STREQ(error_code_name(ErrorCode::AlreadyRegistered), "AlreadyRegistered");
  EXPECT_STREQ(error_code_name(ErrorCode::MemoryAllocationFailed), "MemoryAllocationFailed");
  EXPECT_STREQ(error_code_name(ErrorCode::OperatorMissing), "OperatorMissing");
  EXPECT_STREQ(error_code_name(static_cast<ErrorCode>(0x99)), "Unknown");
}

Result<int> half(int x) {
  if (x % 2 != 0) return Error(ErrorCode::InvalidArgument, "odd");
  return x / 2;
}

Result<int> quarter(int x) {
  DEVPLAN_ASSIGN_OR_RETURN(int h, half(x));
  DEVPLAN_ASSIGN_OR_RETURN(int q, half(h));
  return q;
}

Error check_even(int x) {
  DEVPLAN_RETURN_IF_ERROR(half(x).error());
  return Error::success();
}

TEST(ResultTest, ValueAndErrorPropagate) {
  Result<int> r = quarter(12);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 3);
  Result<int> bad = quarter(6);
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(bad.error().message(), "odd");
  EXPECT_TRUE(check_even(2).ok());
  EXPECT_EQ(check_even(3).code(), ErrorCode::InvalidArgument);
}

TEST(ResultTest, OkErrorWithoutValueBecomesInternal) {
  Result<int> r{Error()};
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.code(), ErrorCode::Internal);
}

TEST(ResultTest, HoldsMoveOnlyValues) {
  Result<std::unique_ptr<int>> r(std::make_unique<int>(7));
  ASSERT_TRUE(r.ok());
  std::unique_ptr<int> p = std::move(r).value();
  EXPECT_EQ(*p, 7);
}

}  // namespace
}  // namespace devplan
