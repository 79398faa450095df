// JsonWriter: writes one JSON document as a stream of calls, compact, keys in the order given.
//
//   JsonWriter w;
//   w.begin_object().key("status").value("ok").key("leaks").begin_array().end_array()
//    .end_object();
//   w.str();   // {"status":"ok","leaks":[]}
//
// The caller keeps begin/end balanced; the writer adds commas and escapes strings (RFC 8259).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace devplan::harness {

class JsonWriter {
 public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(const std::string& name);
  JsonWriter& value(const std::string& s);
  JsonWriter& value(const char* s) { return value(std::string(s)); }
  JsonWriter& value(int64_t v);
  JsonWriter& value(uint64_t v);
  JsonWriter& value(int v) { return value(static_cast<int64_t>(v)); }
  JsonWriter& value(double v);  // shortest round-trip text; NaN and infinities become null
  JsonWriter& value(bool v);
  JsonWriter& null();
  // A number already formatted as JSON text (e.g. a tensor element).
  JsonWriter& raw_number(const std::string& text);

  const std::string& str() const { return out_; }

 private:
  void before_value();
  std::string out_;
  std::vector<bool> first_;  // per open container: no element written yet
  bool after_key_ = false;
};

// `s` as a JSON string literal, quotes included.
std::string json_quote(const std::string& s);

}  // namespace devplan::harness
