// JSON writing: compact or pretty, object members in insertion order, strings escaped so that
// the output is always valid JSON and valid UTF-8, integers exact, doubles in the shortest form
// that reads back to the same double.
//
//   write_json(doc);                       // {"name":"forward","shape":[2,2]}
//   JsonWriteOptions pretty;
//   pretty.pretty = true;
//   write_json(doc, pretty);               // {\n  "name": "forward",\n  "shape": [\n    2, ...
//
// Doubles always carry a '.' or an exponent ("1.0", "1e+20"), so they read back as doubles;
// NaN and infinities have no JSON form and are written as null. Invalid UTF-8 in a string is
// written as U+FFFD.
#pragma once

#include <string>

#include <harness/json/json_value.h>

namespace devplan {

struct JsonWriteOptions {
  bool pretty = false;  // newlines and indentation; "key": value with one space
  int indent = 2;       // spaces per level when pretty
};

std::string write_json(const JsonValue& value, const JsonWriteOptions& options = {});

// Appends `s` as a quoted, escaped JSON string.
void append_json_string(const std::string& s, std::string* out);

}  // namespace devplan
