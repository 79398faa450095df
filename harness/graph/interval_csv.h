// The instance format of published offset-assignment benchmarks (MiniMalloc's, among others):
// a CSV with one buffer per row,
//
//   id,lower,upper,size[,alignment]
//   b1,0,3,4
//
// lifetimes half-open [lower, upper), sizes in bytes, an optional alignment (a power of two;
// 1 when absent). The header names each column; columns may come in any order, and the
// spellings buffer, start (or begin) and end for id, lower and upper are accepted too. As in
// MiniMalloc, an `end` is the last step a buffer is live: `start,end` is [start, end + 1). A
// column `offset` (a plan's output) is read past. Writing echoes the input's header names and
// rows, with `offset` last.
//
//   Result<IntervalTable> t = parse_interval_csv(text, "in.csv");
//   std::string csv = write_interval_csv(*t, offsets);
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <runtime_ext/core/result.h>

namespace devplan::harness {

struct IntervalRow {
  std::string id;
  int64_t lower = 0;
  int64_t upper = 0;
  uint64_t size = 0;
  uint64_t alignment = 1;
};

struct IntervalTable {
  std::vector<std::string> header;               // the input's column names, `offset` left out
  std::vector<std::vector<std::string>> fields;  // per row, its fields in header order
  std::vector<IntervalRow> rows;
};

// InvalidArgument naming `file`, the line and the column for: a missing or repeated column, an
// unknown column, a row with too few or too many fields, an empty or duplicate id, a field that
// is not a non-negative integer or does not fit in 64 bits (lower and upper: 63), upper <=
// lower, an alignment that is not a power of two, and sizes that sum past 2^62 bytes.
Result<IntervalTable> parse_interval_csv(const std::string& text, const std::string& file);

// The table with an `offset` column: one row per input row, in input order.
std::string write_interval_csv(const IntervalTable& table, const std::vector<uint64_t>& offsets);

}  // namespace devplan::harness
