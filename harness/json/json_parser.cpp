#include <harness/json/json_parser.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>

namespace devplan {

namespace {

class Parser {
 public:
  Parser(std::string_view text, const JsonParseOptions& options) : s_(text), options_(options) {}

  Result<JsonValue> run() {
    if (s_.size() >= 3 && static_cast<unsigned char>(s_[0]) == 0xEF &&
        static_cast<unsigned char>(s_[1]) == 0xBB && static_cast<unsigned char>(s_[2]) == 0xBF) {
      return fail("unexpected byte order mark (U+FEFF); JSON text must not start with one");
    }
    skip_space();
    JsonValue root;
    DEVPLAN_RETURN_IF_ERROR(value(&root, 0));
    skip_space();
    if (pos_ < s_.size()) return fail("unexpected " + describe_here() + " after the JSON value");
    return root;
  }

 private:
  Error fail(const std::string& what) const { return fail_at(pos_, what); }

  Error fail_at(size_t at, const std::string& what) const {
    size_t line = 1, column = 1;
    for (size_t i = 0; i < at && i < s_.size(); ++i) {
      if (s_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    return Error(ErrorCode::InvalidArgument, "JSON parse error at line " + std::to_string(line) +
                                                 ", column " + std::to_string(column) + ": " + what);
  }

  // "end of input", "'x'", "byte 0x01".
  std::string describe_here() const {
    if (pos_ >= s_.size()) return "end of input";
    const unsigned char c = static_cast<unsigned char>(s_[pos_]);
    if (c >= 0x20 && c < 0x7f) return std::string("'") + static_cast<char>(c) + "'";
    static const char* kHex = "0123456789abcdef";
    return std::string("byte 0x") + kHex[c >> 4] + kHex[c & 15];
  }

  void skip_space() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) {
      ++pos_;
    }
  }

  bool literal(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  Error value(JsonValue* out, size_t depth) {
    if (pos_ >= s_.size()) return fail("expected a value, got end of input");
    const char c = s_[pos_];
    switch (c) {
      case '{':
        return object(out, depth + 1);
      case '[':
        return array(out, depth + 1);
      case '"': {
        std::string str;
        DEVPLAN_RETURN_IF_ERROR(string(&str));
        *out = JsonValue(std::move(str));
        return Error::success();
      }
      case 't':
        if (literal("true")) {
          *out = JsonValue(true);
          return Error::success();
        }
        break;
      case 'f':
        if (literal("false")) {
          *out = JsonValue(false);
          return Error::success();
        }
        break;
      case 'n':
        if (literal("null")) {
          *out = JsonValue();
          return Error::success();
        }
        break;
      default:
        if (c == '-' || (c >= '0' && c <= '9')) return number(out);
        break;
    }
    return fail("expected a value, got " + describe_here());
  }

  Error object(JsonValue* out, size_t depth) {
    if (depth > options_.max_depth) {
      return fail("nesting deeper than " + std::to_string(options_.max_depth) + " levels");
    }
    ++pos_;  // '{'
    *out = JsonValue::object();
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == '}') {
      ++pos_;
      return Error::success();
    }
    for (;;) {
      skip_space();
      if (pos_ >= s_.size() || s_[pos_] != '"') {
        return fail("expected a string key, got " + describe_here());
      }
      const size_t key_at = pos_;
      std::string key;
      DEVPLAN_RETURN_IF_ERROR(string(&key));
      skip_space();
      if (pos_ >= s_.size() || s_[pos_] != ':') {
        return fail("expected ':' after object key, got " + describe_here());
      }
      ++pos_;
      skip_space();
      JsonValue v;
      DEVPLAN_RETURN_IF_ERROR(value(&v, depth));
      if (JsonValue* existing = out->find(key)) {
        if (!options_.allow_duplicate_keys) return fail_at(key_at, "duplicate key \"" + key + "\"");
        *existing = std::move(v);
      } else {
        out->as_object().push_back(JsonMember{std::move(key), std::move(v)});
      }
      skip_space();
      if (pos_ < s_.size() && s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < s_.size() && s_[pos_] == '}') {
        ++pos_;
        return Error::success();
      }
      return fail("expected ',' or '}' after object member, got " + describe_here());
    }
  }

  Error array(JsonValue* out, size_t depth) {
    if (depth > options_.max_depth) {
      return fail("nesting deeper than " + std::to_string(options_.max_depth) + " levels");
    }
    ++pos_;  // '['
    *out = JsonValue::array();
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == ']') {
      ++pos_;
      return Error::success();
    }
    for (;;) {
      skip_space();
      JsonValue v;
      DEVPLAN_RETURN_IF_ERROR(value(&v, depth));
      out->as_array().push_back(std::move(v));
      skip_space();
      if (pos_ < s_.size() && s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < s_.size() && s_[pos_] == ']') {
        ++pos_;
        return Error::success();
      }
      return fail("expected ',' or ']' after array element, got " + describe_here());
    }
  }

  static bool is_digit(char c) { return c >= '0' && c <= '9'; }

  Error number(JsonValue* out) {
    const size_t start = pos_;
    if (s_[pos_] == '-') ++pos_;
    if (pos_ >= s_.size() || !is_digit(s_[pos_])) {
      return fail("expected a digit after '-', got " + describe_here());
    }
    if (s_[pos_] == '0') {
      ++pos_;
      if (pos_ < s_.size() && is_digit(s_[pos_])) return fail("leading zeros are not allowed");
    } else {
      while (pos_ < s_.size() && is_digit(s_[pos_])) ++pos_;
    }
    bool integral = true;
    if (pos_ < s_.size() && s_[pos_] == '.') {
      integral = false;
      ++pos_;
      if (pos_ >= s_.size() || !is_digit(s_[pos_])) {
        return fail("expected a digit after '.', got " + describe_here());
      }
      while (pos_ < s_.size() && is_digit(s_[pos_])) ++pos_;
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      integral = false;
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (pos_ >= s_.size() || !is_digit(s_[pos_])) {
        return fail("expected a digit in the exponent, got " + describe_here());
      }
      while (pos_ < s_.size() && is_digit(s_[pos_])) ++pos_;
    }
    const char* first = s_.data() + start;
    const char* last = s_.data() + pos_;
    if (integral) {
      if (*first == '-') {
        int64_t v = 0;
        auto r = std::from_chars(first, last, v);
        if (r.ec == std::errc() && r.ptr == last) {
          // "-0" stays a double so that it keeps its sign.
          *out = (v == 0) ? JsonValue(-0.0) : JsonValue(v);
          return Error::success();
        }
      } else {
        uint64_t v = 0;
        auto r = std::from_chars(first, last, v);
        if (r.ec == std::errc() && r.ptr == last) {
          *out = JsonValue(v);
          return Error::success();
        }
      }
      // Too large for 64 bits: a double.
    }
    double d = 0;
    auto r = std::from_chars(first, last, d);
    if (r.ec != std::errc() || r.ptr != last) {
      return fail_at(start, "number " + std::string(first, last) + " is out of the range of a double");
    }
    *out = JsonValue(d);
    return Error::success();
  }

  static int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  // Reads 4 hex digits at pos_ (after "\u").
  Error hex4(uint32_t* out) {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const int h = pos_ < s_.size() ? hex_value(s_[pos_]) : -1;
      if (h < 0) return fail("expected 4 hex digits after \\u, got " + describe_here());
      v = v * 16 + static_cast<uint32_t>(h);
      ++pos_;
    }
    *out = v;
    return Error::success();
  }

  static void append_utf8(uint32_t cp, std::string* out) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  // Length of the valid UTF-8 sequence at pos_ (lead byte >= 0x80), or 0.
  size_t utf8_length() const {
    const auto byte = [&](size_t i) {
      return pos_ + i < s_.size() ? static_cast<unsigned char>(s_[pos_ + i]) : 0u;
    };
    const unsigned c = byte(0);
    auto cont = [&](size_t i) { return (byte(i) & 0xC0) == 0x80; };
    if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
      const unsigned c1 = byte(1);
      if (c == 0xE0 && c1 < 0xA0) return 0;  // overlong
      if (c == 0xED && c1 >= 0xA0) return 0;  // UTF-16 surrogates
      return cont(1) && cont(2) ? 3 : 0;
    }
    if (c >= 0xF0 && c <= 0xF4) {
      const unsigned c1 = byte(1);
      if (c == 0xF0 && c1 < 0x90) return 0;  // overlong
      if (c == 0xF4 && c1 >= 0x90) return 0;  // above U+10FFFF
      return cont(1) && cont(2) && cont(3) ? 4 : 0;
    }
    return 0;
  }

  Error string(std::string* out) {
    ++pos_;  // opening quote
    for (;;) {
      if (pos_ >= s_.size()) return fail("unterminated string");
      const unsigned char c = static_cast<unsigned char>(s_[pos_]);
      if (c == '"') {
        ++pos_;
        return Error::success();
      }
      if (c < 0x20) {
        return fail("raw control character " + describe_here() + " in a string (escape it)");
      }
      if (c == '\\') {
        ++pos_;
        if (pos_ >= s_.size()) return fail("unterminated string");
        const char e = s_[pos_];
        switch (e) {
          case '"':
          case '\\':
          case '/':
            out->push_back(e);
            ++pos_;
            break;
          case 'b':
            out->push_back('\b');
            ++pos_;
            break;
          case 'f':
            out->push_back('\f');
            ++pos_;
            break;
          case 'n':
            out->push_back('\n');
            ++pos_;
            break;
          case 'r':
            out->push_back('\r');
            ++pos_;
            break;
          case 't':
            out->push_back('\t');
            ++pos_;
            break;
          case 'u': {
            const size_t escape_at = pos_ - 1;
            ++pos_;
            uint32_t cp = 0;
            DEVPLAN_RETURN_IF_ERROR(hex4(&cp));
            if (cp >= 0xDC00 && cp <= 0xDFFF) {
              return fail_at(escape_at, "lone low surrogate \\u" + std::string(s_.substr(escape_at + 2, 4)));
            }
            if (cp >= 0xD800 && cp <= 0xDBFF) {
              if (s_.substr(pos_, 2) != "\\u") {
                return fail_at(escape_at, "high surrogate \\u" + std::string(s_.substr(escape_at + 2, 4)) +
                                              " is not followed by a low surrogate");
              }
              pos_ += 2;
              uint32_t low = 0;
              DEVPLAN_RETURN_IF_ERROR(hex4(&low));
              if (low < 0xDC00 || low > 0xDFFF) {
                return fail_at(escape_at, "high surrogate \\u" + std::string(s_.substr(escape_at + 2, 4)) +
                                              " is not followed by a low surrogate");
              }
              cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            }
            append_utf8(cp, out);
            break;
          }
          default:
            return fail("invalid escape \\" + std::string(1, e));
        }
        continue;
      }
      if (c < 0x80) {
        out->push_back(static_cast<char>(c));
        ++pos_;
        continue;
      }
      const size_t n = utf8_length();
      if (n == 0) return fail("invalid UTF-8 " + describe_here() + " in a string");
      out->append(s_.substr(pos_, n));
      pos_ += n;
    }
  }

  std::string_view s_;
  const JsonParseOptions& options_;
  size_t pos_ = 0;
};

}  // namespace

Result<JsonValue> parse_json(std::string_view text, const JsonParseOptions& options) {
  return Parser(text, options).run();
}

Result<JsonValue> parse_json_file(const std::string& path, const JsonParseOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Error(ErrorCode::NotFound, "cannot open '" + path + "': " + std::strerror(errno));
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return Error(ErrorCode::AccessFailed, "cannot read '" + path + "'");
  Result<JsonValue> doc = parse_json(buffer.str(), options);
  if (!doc.ok()) return doc.error().with_context(path);
  return doc;
}

}  // namespace devplan
