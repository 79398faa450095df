#include <harness/campaign/fuzz_sharding.h>

#include <map>
#include <string>

#include <gtest/gtest.h>

namespace devplan::harness {
namespace {

// An environment made of `vars` only.
GetEnv environment(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST(FuzzShardingTest, ParsesTheShardOption) {
  Result<Shard> s = parse_shard("2/8");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->index, 2u);
  EXPECT_EQ(s->count, 8u);
  for (const char* bad : {"8/8", "1/0", "x/2", "1", "/2", "1/", "-1/2", "1/4294967296"}) {
    Result<Shard> r = parse_shard(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().message(), std::string("expects I/N with 0 <= I < N, got '") + bad + "'");
  }
}

TEST(FuzzShardingTest, NoEnvironmentMeansOneShard) {
  Result<Shard> s = shard_from_environment(environment({}));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->index, 0u);
  EXPECT_EQ(s->count, 1u);
}

TEST(FuzzShardingTest, BazelVariablesWinOverGoogleTestOnes) {
  Result<Shard> s = shard_from_environment(environment({{"TEST_TOTAL_SHARDS", "4"},
                                                        {"TEST_SHARD_INDEX", "3"},
                                                        {"GTEST_TOTAL_SHARDS", "2"},
                                                        {"GTEST_SHARD_INDEX", "0"}}));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->index, 3u);
  EXPECT_EQ(s->count, 4u);
}

TEST(FuzzShardingTest, GoogleTestVariables) {
  Result<Shard> s = shard_from_environment(
      environment({{"GTEST_TOTAL_SHARDS", "5"}, {"GTEST_SHARD_INDEX", "1"}}));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->index, 1u);
  EXPECT_EQ(s->count, 5u);
}

TEST(FuzzShardingTest, BazelStatusFileIsTouched) {
  const std::string status = ::testing::TempDir() + "devplan_shard_status";
  std::remove(status.c_str());
  Result<Shard> s = shard_from_environment(environment(
      {{"TEST_TOTAL_SHARDS", "2"}, {"TEST_SHARD_INDEX", "1"}, {"TEST_SHARD_STATUS_FILE", status}}));
  ASSERT_TRUE(s.ok());
  FILE* f = std::fopen(status.c_str(), "r");
  EXPECT_NE(f, nullptr) << status;
  if (f != nullptr) std::fclose(f);
  std::remove(status.c_str());
}

TEST(FuzzShardingTest, BadEnvironmentNamesTheVariable) {
  const std::pair<std::map<std::string, std::string>, const char*> cases[] = {
      {{{"TEST_TOTAL_SHARDS", "4"}}, "TEST_TOTAL_SHARDS is set but TEST_SHARD_INDEX is not"},
      {{{"GTEST_SHARD_INDEX", "0"}}, "GTEST_SHARD_INDEX is set but GTEST_TOTAL_SHARDS is not"},
      {{{"TEST_TOTAL_SHARDS", "0"}, {"TEST_SHARD_INDEX", "0"}},
       "TEST_TOTAL_SHARDS='0' is not a shard count in [1, 4294967295]"},
      {{{"GTEST_TOTAL_SHARDS", "many"}, {"GTEST_SHARD_INDEX", "0"}},
       "GTEST_TOTAL_SHARDS='many' is not a shard count in [1, 4294967295]"},
      {{{"TEST_TOTAL_SHARDS", "4"}, {"TEST_SHARD_INDEX", "4"}},
       "TEST_SHARD_INDEX='4' is not a shard index in [0, 3]"},
  };
  for (const auto& [vars, message] : cases) {
    Result<Shard> s = shard_from_environment(environment(vars));
    ASSERT_FALSE(s.ok()) << message;
    EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
    EXPECT_EQ(s.error().message(), message);
  }
}

}  // namespace
}  // namespace devplan::harness
