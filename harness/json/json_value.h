// JsonValue: a small JSON document model. A value is null, a boolean, an integer (kept exact:
// int64, or uint64 above INT64_MAX), a double, a string (UTF-8), an array, or an object whose
// members keep the order they were added in (and are written in that order).
//
//   JsonValue doc = JsonValue::object();
//   doc.set("name", "forward");
//   doc.set("alignment", 16);
//   JsonValue shape = JsonValue::array();
//   shape.push_back(2);
//   doc.set("shape", std::move(shape));
//   const JsonValue* a = doc.find("alignment");      // nullptr when absent
//   Result<int64_t> n = a->get_int64();              // 16, or an error naming the type
//
// Reading the wrong type through as_*() is a programming error (checked by assert only); the
// get_*() readers return InvalidArgument instead and are the ones to use on untrusted input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <runtime_ext/core/result.h>

namespace devplan {

enum class JsonType : uint8_t { Null, Bool, Int, UInt, Double, String, Array, Object };

// "null", "boolean", "integer" (Int and UInt), "number", "string", "array", "object": how
// error messages name a value's type.
const char* json_type_name(JsonType type);

struct JsonMember;

class JsonValue {
 public:
  using Array = std::vector<JsonValue>;
  using Object = std::vector<JsonMember>;

  JsonValue() = default;  // null
  JsonValue(std::nullptr_t) {}  // NOLINT: implicit, like the literal it stands for
  JsonValue(bool b) : type_(JsonType::Bool), bool_(b) {}  // NOLINT
  // Any integer type; stored as Int when it fits int64, else UInt.
  template <typename T, typename std::enable_if<std::is_integral<T>::value &&
                                                    !std::is_same<T, bool>::value,
                                                int>::type = 0>
  JsonValue(T v) {  // NOLINT
    if (std::is_signed<T>::value || static_cast<uint64_t>(v) <= static_cast<uint64_t>(INT64_MAX)) {
      type_ = JsonType::Int;
      int_ = static_cast<int64_t>(v);
    } else {
      type_ = JsonType::UInt;
      uint_ = static_cast<uint64_t>(v);
    }
  }
  JsonValue(double d) : type_(JsonType::Double), double_(d) {}  // NOLINT
  JsonValue(float f) : JsonValue(static_cast<double>(f)) {}     // NOLINT
  JsonValue(std::string s) : type_(JsonType::String), string_(std::move(s)) {}  // NOLINT
  JsonValue(const char* s) : JsonValue(std::string(s)) {}                       // NOLINT
  JsonValue(std::string_view s) : JsonValue(std::string(s)) {}                  // NOLINT

  static JsonValue array(Array items = {});
  static JsonValue object(Object members = {});

  JsonType type() const { return type_; }
  bool is_null() const { return type_ == JsonType::Null; }
  bool is_bool() const { return type_ == JsonType::Bool; }
  bool is_integer() const { return type_ == JsonType::Int || type_ == JsonType::UInt; }
  bool is_number() const { return is_integer() || type_ == JsonType::Double; }
  bool is_string() const { return type_ == JsonType::String; }
  bool is_array() const { return type_ == JsonType::Array; }
  bool is_object() const { return type_ == JsonType::Object; }

  // Checked readers: InvalidArgument ("expected an integer, got string", "integer
  // 18446744073709551615 does not fit in int64", ...) when the value is not of that kind.
  Result<bool> get_bool() const;
  Result<int64_t> get_int64() const;     // integers only, within int64
  Result<uint64_t> get_uint64() const;   // integers only, non-negative
  Result<double> get_double() const;     // any number (integers converted)
  Result<std::string> get_string() const;

  // Unchecked readers; the type must match.
  bool as_bool() const { return bool_; }
  int64_t as_int64() const { return int_; }
  uint64_t as_uint64() const { return uint_; }
  double as_double() const { return double_; }
  const std::string& as_string() const { return string_; }
  const Array& as_array() const { return array_; }
  const Object& as_object() const { return object_; }
  Array& as_array() { return array_; }
  Object& as_object() { return object_; }

  // Arrays (and objects, for size()): the number of elements or members; 0 for scalars.
  size_t size() const;
  const JsonValue& operator[](size_t i) const { return array_[i]; }
  // Appends to an array (a null becomes an empty array first).
  void push_back(JsonValue v);

  // Objects: the member named `key`, or nullptr (also for non-objects).
  const JsonValue* find(std::string_view key) const;
  JsonValue* find(std::string_view key);
  bool contains(std::string_view key) const { return find(key) != nullptr; }
  // Sets member `key`: replaces the value in place when present, else appends. A null becomes
  // an empty object first.
  void set(std::string key, JsonValue v);

  // Deep equality. Int and UInt compare by value; doubles by ==; objects member by member in
  // order.
  friend bool operator==(const JsonValue& a, const JsonValue& b);
  friend bool operator!=(const JsonValue& a, const JsonValue& b) { return !(a == b); }

 private:
  Error type_error(const char* expected) const;

  JsonType type_ = JsonType::Null;
  bool bool_ = false;
  int64_t int_ = 0;
  uint64_t uint_ = 0;
  double double_ = 0;
  std::string string_;
  Array array_;
  Object object_;
};

struct JsonMember {
  std::string key;
  JsonValue value;
};

}  // namespace devplan
