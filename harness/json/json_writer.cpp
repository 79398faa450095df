#include <harness/json/json_writer.h>

#include <charconv>
#include <cmath>

namespace devplan {

namespace {

// Length of the valid UTF-8 sequence at s[i] (lead byte >= 0x80), or 0.
size_t utf8_length(const std::string& s, size_t i) {
  auto byte = [&](size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u; };
  auto cont = [&](size_t k) { return (byte(k) & 0xC0) == 0x80; };
  const unsigned c = byte(0);
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (c == 0xE0 && byte(1) < 0xA0) return 0;
    if (c == 0xED && byte(1) >= 0xA0) return 0;
    return cont(1) && cont(2) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (c == 0xF0 && byte(1) < 0x90) return 0;
    if (c == 0xF4 && byte(1) >= 0x90) return 0;
    return cont(1) && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

void append_double(double d, std::string* out) {
  if (!std::isfinite(d)) {
    out->append("null");
    return;
  }
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), d);
  std::string text(buf, r.ptr);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  out->append(text);
}

class Writer {
 public:
  Writer(const JsonWriteOptions& options, std::string* out) : options_(options), out_(out) {}

  void write(const JsonValue& v, int depth) {
    switch (v.type()) {
      case JsonType::Null:
        out_->append("null");
        return;
      case JsonType::Bool:
        out_->append(v.as_bool() ? "true" : "false");
        return;
      case JsonType::Int:
        out_->append(std::to_string(v.as_int64()));
        return;
      case JsonType::UInt:
        out_->append(std::to_string(v.as_uint64()));
        return;
      case JsonType::Double:
        append_double(v.as_double(), out_);
        return;
      case JsonType::String:
        append_json_string(v.as_string(), out_);
        return;
      case JsonType::Array: {
        const JsonValue::Array& a = v.as_array();
        if (a.empty()) {
          out_->append("[]");
          return;
        }
        out_->push_back('[');
        for (size_t i = 0; i < a.size(); ++i) {
          if (i > 0) out_->push_back(',');
          newline(depth + 1);
          write(a[i], depth + 1);
        }
        newline(depth);
        out_->push_back(']');
        return;
      }
      case JsonType::Object: {
        const JsonValue::Object& o = v.as_object();
        if (o.empty()) {
          out_->append("{}");
          return;
        }
        out_->push_back('{');
        for (size_t i = 0; i < o.size(); ++i) {
          if (i > 0) out_->push_back(',');
          newline(depth + 1);
          append_json_string(o[i].key, out_);
          out_->append(options_.pretty ? ": " : ":");
          write(o[i].value, depth + 1);
        }
        newline(depth);
        out_->push_back('}');
        return;
      }
    }
  }

 private:
  void newline(int depth) {
    if (!options_.pretty) return;
    out_->push_back('\n');
    out_->append(static_cast<size_t>(depth) * static_cast<size_t>(options_.indent), ' ');
  }

  const JsonWriteOptions& options_;
  std::string* out_;
};

}  // namespace

void append_json_string(const std::string& s, std::string* out) {
  static const char* kHex = "0123456789abcdef";
  out->push_back('"');
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const size_t n = utf8_length(s, i);
      if (n == 0) {
        out->append("\xEF\xBF\xBD");  // U+FFFD
        ++i;
      } else {
        out->append(s, i, n);
        i += n;
      }
      continue;
    }
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\b':
        out->append("\\b");
        break;
      case '\f':
        out->append("\\f");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      default:
        if (c < 0x20) {
          out->append("\\u00");
          out->push_back(kHex[c >> 4]);
          out->push_back(kHex[c & 15]);
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
    ++i;
  }
  out->push_back('"');
}

std::string write_json(const JsonValue& value, const JsonWriteOptions& options) {
  std::string out;
  Writer(options, &out).write(value, 0);
  return out;
}

}  // namespace devplan
