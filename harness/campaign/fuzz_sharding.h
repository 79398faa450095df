// Which share of a fuzz campaign this process runs: cases k with k % count == index.
//
//   --shard 2/8                          parse_shard("2/8") -> {2, 8}
//   TEST_TOTAL_SHARDS=8 TEST_SHARD_INDEX=2      (Bazel's test sharding)
//   GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=2    (GoogleTest's, as ctest and gtest-parallel set)
//
// An explicit --shard wins; then the TEST_* pair, then the GTEST_* pair; none of them means one
// shard. When Bazel asks for it (TEST_SHARD_STATUS_FILE), the file is touched to say sharding
// is supported.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <runtime_ext/core/result.h>

namespace devplan::harness {

struct Shard {
  uint32_t index = 0;
  uint32_t count = 1;
};

// "I/N" with 0 <= I < N <= 2^32-1. InvalidArgument naming the text otherwise.
Result<Shard> parse_shard(const std::string& text);

// Reads the environment through `getenv` (the process's by default). InvalidArgument naming the
// variable for a half-set pair, a value that is not a number, or an index outside the count.
using GetEnv = std::function<const char*(const char*)>;
Result<Shard> shard_from_environment(const GetEnv& getenv = nullptr);

}  // namespace devplan::harness
