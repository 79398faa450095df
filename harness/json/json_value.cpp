#include <harness/json/json_value.h>

namespace devplan {

const char* json_type_name(JsonType type) {
  switch (type) {
    case JsonType::Null:
      return "null";
    case JsonType::Bool:
      return "boolean";
    case JsonType::Int:
    case JsonType::UInt:
      return "integer";
    case JsonType::Double:
      return "number";
    case JsonType::String:
      return "string";
    case JsonType::Array:
      return "array";
    case JsonType::Object:
      return "object";
  }
  return "unknown";
}

JsonValue JsonValue::array(Array items) {
  JsonValue v;
  v.type_ = JsonType::Array;
  v.array_ = std::move(items);
  return v;
}

JsonValue JsonValue::object(Object members) {
  JsonValue v;
  v.type_ = JsonType::Object;
  v.object_ = std::move(members);
  return v;
}

Error JsonValue::type_error(const char* expected) const {
  return Error(ErrorCode::InvalidArgument,
               std::string("expected ") + expected + ", got " + json_type_name(type_));
}

Result<bool> JsonValue::get_bool() const {
  if (type_ != JsonType::Bool) return type_error("a boolean");
  return bool_;
}

Result<int64_t> JsonValue::get_int64() const {
  if (type_ == JsonType::Int) return int_;
  if (type_ == JsonType::UInt) {
    return Error(ErrorCode::InvalidArgument,
                 "integer " + std::to_string(uint_) + " does not fit in int64");
  }
  return type_error("an integer");
}

Result<uint64_t> JsonValue::get_uint64() const {
  if (type_ == JsonType::UInt) return uint_;
  if (type_ == JsonType::Int) {
    if (int_ < 0) {
      return Error(ErrorCode::InvalidArgument,
                   "expected a non-negative integer, got " + std::to_string(int_));
    }
    return static_cast<uint64_t>(int_);
  }
  return type_error("an integer");
}

Result<double> JsonValue::get_double() const {
  switch (type_) {
    case JsonType::Double:
      return double_;
    case JsonType::Int:
      return static_cast<double>(int_);
    case JsonType::UInt:
      return static_cast<double>(uint_);
    default:
      return type_error("a number");
  }
}

Result<std::string> JsonValue::get_string() const {
  if (type_ != JsonType::String) return type_error("a string");
  return string_;
}

size_t JsonValue::size() const {
  if (type_ == JsonType::Array) return array_.size();
  if (type_ == JsonType::Object) return object_.size();
  return 0;
}

void JsonValue::push_back(JsonValue v) {
  if (type_ == JsonType::Null) type_ = JsonType::Array;
  array_.push_back(std::move(v));
}

const JsonValue* JsonValue::find(std::string_view key) const {
  if (type_ != JsonType::Object) return nullptr;
  for (const JsonMember& m : object_) {
    if (m.key == key) return &m.value;
  }
  return nullptr;
}

JsonValue* JsonValue::find(std::string_view key) {
  return const_cast<JsonValue*>(static_cast<const JsonValue*>(this)->find(key));
}

void JsonValue::set(std::string key, JsonValue v) {
  if (type_ == JsonType::Null) type_ = JsonType::Object;
  if (JsonValue* existing = find(key)) {
    *existing = std::move(v);
    return;
  }
  object_.push_back(JsonMember{std::move(key), std::move(v)});
}

bool operator==(const JsonValue& a, const JsonValue& b) {
  if (a.type_ != b.type_) return false;
  switch (a.type_) {
    case JsonType::Null:
      return true;
    case JsonType::Bool:
      return a.bool_ == b.bool_;
    case JsonType::Int:
      return a.int_ == b.int_;
    case JsonType::UInt:
      return a.uint_ == b.uint_;
    case JsonType::Double:
      return a.double_ == b.double_;
    case JsonType::String:
      return a.string_ == b.string_;
    case JsonType::Array:
      return a.array_ == b.array_;
    case JsonType::Object:
      if (a.object_.size() != b.object_.size()) return false;
      for (size_t i = 0; i < a.object_.size(); ++i) {
        if (a.object_[i].key != b.object_[i].key || a.object_[i].value != b.object_[i].value) {
          return false;
        }
      }
      return true;
  }
  return false;
}

}  // namespace devplan
