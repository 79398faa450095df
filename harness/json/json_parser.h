// JSON parsing: strict RFC 8259. Returns a Result instead of throwing; an error says where
// (line and column, both 1-based; the column counts bytes) and what was expected.
//
//   Result<JsonValue> doc = parse_json(R"({"a": [1, 2.5, "x"]})");
//   if (!doc.ok()) std::cerr << doc.error().message();
//   // "JSON parse error at line 1, column 7: expected a value, got ']'"
//
// Strictness: one value (any type) surrounded only by spaces, tabs, CR and LF; no comments, no
// trailing commas, no leading zeros or '+', no NaN or Infinity, no byte order mark; strings are
// valid UTF-8 without raw control characters, with valid escapes and paired \u surrogates.
// Duplicate object keys are rejected unless allowed. Integers keep their exact value when they
// fit int64 or uint64 (else they become doubles); a number out of the range of a double is an
// error.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <harness/json/json_value.h>
#include <runtime_ext/core/result.h>

namespace devplan {

struct JsonParseOptions {
  size_t max_depth = 256;            // arrays and objects nested deeper are an error
  bool allow_duplicate_keys = false;  // when allowed, the last value wins
};

// Parses `text`. InvalidArgument "JSON parse error at line L, column C: <what>" on bad input.
Result<JsonValue> parse_json(std::string_view text, const JsonParseOptions& options = {});

// Reads and parses the file at `path`. NotFound when it cannot be opened, AccessFailed when it
// cannot be read; parse errors are prefixed with the path ("graph.json: JSON parse error ...").
Result<JsonValue> parse_json_file(const std::string& path, const JsonParseOptions& options = {});

}  // namespace devplan
