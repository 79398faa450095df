#include <runtime_ext/core/result.h>

#include <memory>
#include <string>

#include <gtest/gtest.h>

namespace devplan {
namespace {

TEST(ResultTest, OkResultGivesItsValue) {
  Result<std::string> r = std::string("forward");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value(), "forward");
  EXPECT_EQ(*r, "forward");
  EXPECT_EQ(r->size(), 7u);
  EXPECT_EQ(r.code(), ErrorCode::Ok);
  Result<std::unique_ptr<int>> owned = std::make_unique<int>(3);
  std::unique_ptr<int> taken = std::move(owned).value();
  EXPECT_EQ(*taken, 3);
}

TEST(ResultTest, AnOkErrorBecomesInternal) {
  Result<int> r = Error::success();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.code(), ErrorCode::Internal);
}

using ResultDeathTest = ::testing::Test;

TEST(ResultDeathTest, ReadingTheValueOfAnErrorAbortsWithTheError) {
  const Result<int> r = Error(ErrorCode::NotFound, "the program has no method 'x'");
  EXPECT_DEATH((void)r.value(),
               "devplan: Result read without a value: NotFound: the program has no method 'x'");
  EXPECT_DEATH((void)*r, "Result read without a value: NotFound");
  Result<std::string> s = Error(ErrorCode::InvalidArgument, "bad");
  EXPECT_DEATH((void)s->size(), "Result read without a value: InvalidArgument: bad");
  EXPECT_DEATH((void)std::move(s).value(), "Result read without a value: InvalidArgument: bad");
}

}  // namespace
}  // namespace devplan
