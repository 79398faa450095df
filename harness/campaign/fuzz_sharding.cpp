#include <harness/campaign/fuzz_sharding.h>

#include <cstdlib>
#include <fstream>
#include <optional>

namespace devplan::harness {
namespace {

// A whole decimal number in [min, max]; false otherwise.
bool parse_count(const std::string& text, uint64_t min, uint64_t max, uint64_t* out) {
  if (text.empty() || text.size() > 10) return false;
  uint64_t n = 0;
  for (char ch : text) {
    if (ch < '0' || ch > '9') return false;
    n = n * 10 + static_cast<uint64_t>(ch - '0');
  }
  if (n < min || n > max) return false;
  *out = n;
  return true;
}

// The pair of variables `total_name` / `index_name`: nullopt when neither is set.
Result<std::optional<Shard>> shard_from_pair(const GetEnv& getenv, const char* total_name,
                                             const char* index_name) {
  const char* total = getenv(total_name);
  const char* index = getenv(index_name);
  if (total == nullptr && index == nullptr) return std::optional<Shard>();
  if (total == nullptr || index == nullptr) {
    return Error(ErrorCode::InvalidArgument,
                 std::string(total == nullptr ? index_name : total_name) + " is set but " +
                     (total == nullptr ? total_name : index_name) + " is not");
  }
  uint64_t count = 0, i = 0;
  if (!parse_count(total, 1, UINT32_MAX, &count)) {
    return Error(ErrorCode::InvalidArgument, std::string(total_name) + "='" + total +
                                                 "' is not a shard count in [1, 4294967295]");
  }
  if (!parse_count(index, 0, count - 1, &i)) {
    return Error(ErrorCode::InvalidArgument, std::string(index_name) + "='" + index +
                                                 "' is not a shard index in [0, " +
                                                 std::to_string(count - 1) + "]");
  }
  return std::optional<Shard>(Shard{static_cast<uint32_t>(i), static_cast<uint32_t>(count)});
}

}  // namespace

Result<Shard> parse_shard(const std::string& text) {
  const size_t slash = text.find('/');
  uint64_t count = 0, index = 0;
  if (slash == std::string::npos || !parse_count(text.substr(slash + 1), 1, UINT32_MAX, &count) ||
      !parse_count(text.substr(0, slash), 0, count - 1, &index)) {
    return Error(ErrorCode::InvalidArgument, "expects I/N with 0 <= I < N, got '" + text + "'");
  }
  return Shard{static_cast<uint32_t>(index), static_cast<uint32_t>(count)};
}

Result<Shard> shard_from_environment(const GetEnv& getenv_in) {
  const GetEnv getenv = getenv_in ? getenv_in : [](const char* name) { return std::getenv(name); };
  DEVPLAN_ASSIGN_OR_RETURN(std::optional<Shard> bazel,
                           shard_from_pair(getenv, "TEST_TOTAL_SHARDS", "TEST_SHARD_INDEX"));
  if (bazel) {
    // Bazel's handshake: the file exists when the test honours sharding.
    if (const char* status = getenv("TEST_SHARD_STATUS_FILE"))
      std::ofstream touch(status, std::ios::app);
    return *bazel;
  }
  DEVPLAN_ASSIGN_OR_RETURN(std::optional<Shard> gtest,
                           shard_from_pair(getenv, "GTEST_TOTAL_SHARDS", "GTEST_SHARD_INDEX"));
  return gtest.value_or(Shard{});
}

}  // namespace devplan::harness
