// JSON for the whole project: nlohmann/json's document model behind a strict parser and a writer
// that return Results instead of throwing.
//
//   Result<Json> doc = parse_json(R"({"name": "forward", "shape": [2, 2]})");
//   if (!doc.ok()) return doc.error();          // "JSON parse error at line 1, column 7: ..."
//   auto shape = doc->find("shape");             // doc->end() when absent
//   std::string text = write_json(*doc);         // {"name":"forward","shape":[2,2]}
//
// Parsing is strict RFC 8259: one value surrounded only by spaces, tabs, CR and LF; no comments,
// no trailing commas, no leading zeros or '+', no NaN or Infinity, no byte order mark; strings
// are valid UTF-8 without raw control characters (NUL included), with valid escapes and paired
// \u surrogates. An error is InvalidArgument
// "JSON parse error at line L, column C: <what>", both 1-based, the column counting bytes:
//
//   "expected a value, got ']'"                   "expected a string key, got '}'"
//   "expected ':' after object key, got '1'"      "expected ',' or ']' after array element, got
//   '2'" "expected ',' or '}' after object member, got '\"'" "unexpected '2' after the JSON value"
//   "leading zeros are not allowed" "duplicate key \"a\""                         "nesting deeper
//   than 256 levels" "number 1e400 is out of the range of a double" "invalid UTF-8 byte 0xc3 in a
//   string"         "unterminated string", ...
//
// Numbers: an integer keeps its exact value when it fits: a negative one is an int64
// (is_number_integer() and !is_number_unsigned()), a non-negative one a uint64
// (is_number_unsigned()); "-0" is the integer 0. An integer beyond both ranges, or any number
// with a fraction or an exponent, is a double; one whose magnitude is too large for a double
// ("1e400", "-1e400") is an error, one too small ("1e-400") reads as 0 or the nearest
// subnormal.
//
// Json is nlohmann::ordered_json: object members keep the order they were read or added in
// (and are written in it); finding one is linear in the member count. Read members with
// find()/contains() and check types with is_*() before get<T>(): nlohmann's at() and get<T>()
// throw on a missing member or a type mismatch.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include <runtime_ext/core/result.h>

namespace devplan {

using Json = nlohmann::ordered_json;  // members keep insertion order

struct JsonParseOptions {
  size_t max_depth = 256;             // arrays and objects nested deeper are an error
  bool allow_duplicate_keys = false;  // when allowed, the last value wins (at the first's place)
};

// Parses `text` (see above). Never throws.
Result<Json> parse_json(std::string_view text, const JsonParseOptions& options = {});

// Reads and parses the file at `path` through the runtime's FileDataLoader. AccessFailed
// "cannot open '<path>': <reason>" when it cannot be opened, "cannot read '<path>': <reason>"
// when it is not a regular file (a directory: "Is a directory"; a FIFO is refused without
// waiting for a writer) or cannot be read; parse errors are prefixed with the path
// ("graph.json: JSON parse error ..."). Never throws.
Result<Json> parse_json_file(const std::string& path, const JsonParseOptions& options = {});

// Compact text, or pretty with a 2-space indent and "key": value. Members in insertion order;
// integers exact; doubles in the shortest form that reads back to the same double, always with
// a '.' or an exponent ("1.0", "1e+20"); NaN and infinities, which JSON cannot hold, as null.
// Invalid UTF-8 in a string is written as U+FFFD, so the output is always valid JSON and
// valid UTF-8. Never throws (returns "" only if memory runs out).
std::string write_json(const Json& value, bool pretty = false);

}  // namespace devplan
