#include <harness/json/json.h>

#include <runtime_ext/program/file_data_loader.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <iterator>
#include <new>
#include <unordered_set>
#include <utility>
#include <vector>

namespace devplan {

namespace {

// A const char* that records, in *last_read, the last byte nlohmann's lexer has read: the
// parser's SAX events come right after their token, so this says where a key or a bracket is.
class TrackingIterator {
 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  TrackingIterator(const char* p, const char** last_read) : p_(p), last_read_(last_read) {}

  reference operator*() const {
    *last_read_ = p_;
    return *p_;
  }
  TrackingIterator& operator++() {
    ++p_;
    return *this;
  }
  TrackingIterator operator++(int) {
    TrackingIterator before = *this;
    ++p_;
    return before;
  }
  bool operator==(const TrackingIterator& o) const { return p_ == o.p_; }
  bool operator!=(const TrackingIterator& o) const { return p_ != o.p_; }

 private:
  const char* p_;
  const char** last_read_;
};

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Builds the document from nlohmann's SAX events, rejecting duplicate keys and deep nesting;
// turns nlohmann's parse errors into this layer's messages.
class DocumentBuilder {
 public:
  using number_integer_t = Json::number_integer_t;
  using number_unsigned_t = Json::number_unsigned_t;
  using number_float_t = Json::number_float_t;
  using string_t = Json::string_t;
  using binary_t = Json::binary_t;

  DocumentBuilder(std::string_view text, const JsonParseOptions& options)
      : s_(text), options_(options) {}

  // Parses the whole text; the document, or the first error.
  Result<Json> run() {
    if (starts_with(s_, "\xEF\xBB\xBF")) {
      return fail_at(0, "unexpected byte order mark (U+FEFF); JSON text must not start with one");
    }
    const TrackingIterator first(s_.data(), &last_read_);
    const TrackingIterator last(s_.data() + s_.size(), &last_read_);
    const bool ok = Json::sax_parse(first, last, this, Json::input_format_t::json,
                                    /*strict=*/true, /*ignore_comments=*/false);
    if (!ok) {
      if (error_.ok()) return fail_at(s_.size(), "the parser stopped without saying why");
      return error_;
    }
    // nlohmann's lexer reads a NUL byte as the end of the input; outside a string JSON has no
    // place for one, so a text that parsed up to a NUL continues after its value.
    const size_t nul = s_.find('\0');
    if (nul != std::string_view::npos) {
      return fail_at(nul, "unexpected " + describe(nul) + " after the JSON value");
    }
    return std::move(root_);
  }

  // SAX events (nlohmann::json_sax's interface). Returning false stops the parse.
  bool null() { return add(nullptr); }
  bool boolean(bool b) { return add(b); }
  bool number_integer(number_integer_t v) { return add_number(v); }
  bool number_unsigned(number_unsigned_t v) { return add_number(v); }
  bool number_float(number_float_t v, const string_t& /*text*/) { return add_number(v); }
  bool string(string_t& v) { return add(std::move(v)); }
  bool binary(binary_t& v) { return add(Json::binary(std::move(v))); }

  bool start_object(std::size_t /*size*/) {
    if (!open()) return false;
    Json* object = place(Json::object());
    stack_.push_back(object);
    keys_.emplace_back();
    return true;
  }

  bool key(string_t& k) {
    token_end_ = last_read_index() + 1;
    Json::object_t& object = stack_.back()->get_ref<Json::object_t&>();
    if (keys_.back().insert(k).second) {
      // ordered_map's own insertion searches linearly; the key set has ruled the key out.
      object.emplace_back(std::move(k), nullptr);
      member_ = &object.back().second;
      return true;
    }
    if (!options_.allow_duplicate_keys) {
      error_ = fail_at(key_start(), "duplicate key \"" + k + "\"");
      return false;
    }
    member_ = &object[k];  // the last value wins, in the first one's place
    return true;
  }

  bool end_object() {
    token_end_ = last_read_index() + 1;
    stack_.pop_back();
    keys_.pop_back();
    return true;
  }

  bool start_array(std::size_t /*size*/) {
    if (!open()) return false;
    stack_.push_back(place(Json::array()));
    return true;
  }

  bool end_array() {
    token_end_ = last_read_index() + 1;
    stack_.pop_back();
    return true;
  }

  bool parse_error(std::size_t position, const std::string& last_token, const Json::exception& e) {
    error_ = translate(position, last_token, e);
    return false;
  }

 private:
  // A string or a literal: its last byte is the last one read.
  template <typename V>
  bool add(V&& v) {
    token_end_ = last_read_index() + 1;
    place(Json(std::forward<V>(v)));
    return true;
  }

  // A number: the lexer has read the byte after it, unless the text ended with the number's
  // last digit. (A number never ends before a digit, except a leading "0", and then the digit
  // starts a token that is an error whatever token_end_ says.)
  template <typename V>
  bool add_number(V v) {
    const size_t last = last_read_index();
    const char c = at(last);
    token_end_ = last + 1 == s_.size() && c >= '0' && c <= '9' ? s_.size() : last;
    place(Json(v));
    return true;
  }

  // Puts `v` where the next value goes: the root, the open array's end or the member whose key
  // was just read. Containers still open are never moved: only the innermost one grows.
  Json* place(Json v) {
    if (stack_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    Json& top = *stack_.back();
    if (top.is_array()) {
      Json::array_t& array = top.get_ref<Json::array_t&>();
      array.push_back(std::move(v));
      return &array.back();
    }
    *member_ = std::move(v);
    return member_;
  }

  // Checks the depth of an array or object about to open; its bracket is the last byte read.
  bool open() {
    if (stack_.size() + 1 > options_.max_depth) {
      error_ = fail_at(last_read_index(),
                       "nesting deeper than " + std::to_string(options_.max_depth) + " levels");
      return false;
    }
    return true;
  }

  size_t skip_space(size_t i) const {
    while (i < s_.size() && (s_[i] == ' ' || s_[i] == '\t' || s_[i] == '\n' || s_[i] == '\r')) ++i;
    return i;
  }

  size_t last_read_index() const {
    return last_read_ == nullptr ? 0 : static_cast<size_t>(last_read_ - s_.data());
  }

  // The opening quote of the key just read: its closing quote is the last byte read, and
  // inside a valid string a quote is always escaped by an odd run of backslashes.
  size_t key_start() const {
    size_t i = last_read_index();
    while (i > 0) {
      --i;
      if (s_[i] != '"') continue;
      size_t backslashes = 0;
      while (backslashes < i && s_[i - 1 - backslashes] == '\\') ++backslashes;
      if (backslashes % 2 == 0) return i;
    }
    return 0;
  }

  char at(size_t i) const { return i < s_.size() ? s_[i] : '\0'; }

  // "end of input", "'x'", "byte 0x01".
  std::string describe(size_t i) const {
    if (i >= s_.size()) return "end of input";
    const unsigned char c = static_cast<unsigned char>(s_[i]);
    if (c >= 0x20 && c < 0x7f) return std::string("'") + static_cast<char>(c) + "'";
    return "byte " + hex_byte(c);
  }

  static std::string hex_byte(unsigned char c) {
    static const char* kHex = "0123456789abcdef";
    return std::string("0x") + kHex[c >> 4] + kHex[c & 15];
  }

  Error fail_at(size_t at, const std::string& what) const {
    at = std::min(at, s_.size());
    size_t line = 1;
    size_t line_start = 0;
    for (size_t i = 0; i < at; ++i) {
      if (s_[i] == '\n') {
        ++line;
        line_start = i + 1;
      }
    }
    return Error(ErrorCode::InvalidArgument, "JSON parse error at line " + std::to_string(line) +
                                                 ", column " + std::to_string(at - line_start + 1) +
                                                 ": " + what);
  }

  // Where the token that nlohmann did not expect starts. `end` is the byte after it (its
  // position); a string or number token's text is `token`.
  size_t unexpected_token_start(size_t end, const std::string& token) const {
    const size_t last = end == 0 ? 0 : end - 1;
    if (last >= s_.size()) return s_.size();
    const char c = s_[last];
    if (c == '"' || (c >= '0' && c <= '9')) {
      return token.size() <= end ? end - token.size() : last;
    }
    if (c == 'e') return end >= 4 && s_.substr(end - 4, 4) == "true" ? end - 4 : end - 5;
    if (c == 'l') return end >= 4 ? end - 4 : last;
    return last;  // a bracket, ':', ',' or the NUL that ended the input
  }

  // The start of a literal the lexer gave up on at `bad`: "tru" is reported at its 't'.
  size_t invalid_literal_start(size_t bad) const {
    static const char* kPrefixes[] = {"t", "tr", "tru", "f", "fa", "fal", "fals", "n", "nu", "nul"};
    for (size_t k = 4; k >= 1; --k) {
      if (k > bad) continue;
      const std::string_view run = s_.substr(bad - k, k);
      for (const char* p : kPrefixes) {
        if (run == p) return bad - k;
      }
    }
    return bad;
  }

  // The lead byte of the UTF-8 sequence that the lexer found ill-formed at `bad`: the sequence
  // still open before it, if any, else `bad` itself.
  size_t utf8_sequence_start(size_t bad) const {
    size_t continuations = 0;
    size_t i = bad;
    while (i > 0 && continuations < 3 && (static_cast<unsigned char>(s_[i - 1]) & 0xC0) == 0x80) {
      --i;
      ++continuations;
    }
    if (i == 0) return bad;
    const unsigned char lead = static_cast<unsigned char>(s_[i - 1]);
    const size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    return length > continuations + 1 ? i - 1 : bad;
  }

  // The start of the high surrogate escape that is not followed by a low one; the lexer
  // stopped at `bad`: right after it, after its "\\", or on the last digit of the next escape.
  size_t high_surrogate_start(size_t bad) const {
    if (bad >= 7 && at(bad - 1) == '\\') return bad - 7;
    if (bad >= 11 && at(bad - 5) == '\\' && at(bad - 4) == 'u') return bad - 11;
    return bad >= 6 ? bad - 6 : 0;
  }

  std::string escape_text(size_t start) const { return std::string(s_.substr(start, 6)); }

  // "expected a value, got X" and its kin, by what the parser was reading.
  static std::string expectation(std::string_view context, const std::string& got) {
    if (context == "object key") return "expected a string key, got " + got;
    if (context == "object separator") return "expected ':' after object key, got " + got;
    if (context == "array") return "expected ',' or ']' after array element, got " + got;
    if (context == "object") return "expected ',' or '}' after object member, got " + got;
    return "expected a value, got " + got;
  }

  // nlohmann's message: "[json.exception.parse_error.101] parse error at line 1, column 4:
  // syntax error while parsing <context> - <problem>[; expected <token>]", where the problem is
  // "unexpected <token>" or "<lexer message>; last read: '<text>'" (the wording of 3.10 and
  // 3.11; json_test pins every translation, and a message not known here is passed on as is).
  Error translate(std::size_t position, const std::string& last_token,
                  const Json::exception& e) const {
    const size_t end = std::min(position, s_.size() + 1);
    const size_t bad = end == 0 ? 0 : end - 1;  // the byte the lexer stopped on
    if (e.id == 406) {                          // out_of_range: "number overflow parsing '1e400'"
      const size_t start = last_token.size() <= end ? end - last_token.size() : bad;
      return fail_at(start, "number " + last_token + " is out of the range of a double");
    }
    const std::string_view what = e.what();
    std::string_view context;
    std::string_view problem = what;
    const size_t while_at = what.find("while parsing ");
    const size_t dash_at = what.find(" - ");
    if (while_at != std::string_view::npos && dash_at != std::string_view::npos &&
        dash_at > while_at) {
      context = what.substr(while_at + 14, dash_at - (while_at + 14));
      problem = what.substr(dash_at + 3);
    }
    const bool after_value = ends_with(what, "; expected end of input");
    // Where the parser wants ',', ':', a closing bracket or the end, any string, number or
    // literal is wrong whatever is inside it: report the token, not a flaw the lexer found in it.
    const bool wants_punctuation =
        after_value || context == "array" || context == "object" || context == "object separator";
    const bool unexpected = starts_with(problem, "unexpected ");
    if (unexpected || wants_punctuation) {
      const size_t start =
          unexpected ? unexpected_token_start(end, last_token) : skip_space(token_end_);
      if (start > 0 && at(start - 1) == '0' && at(start) >= '0' && at(start) <= '9') {
        // "01": the lexer read "0" and then a second number.
        return fail_at(start, "leading zeros are not allowed");
      }
      if (after_value)
        return fail_at(start, "unexpected " + describe(start) + " after the JSON value");
      return fail_at(start, expectation(context, describe(start)));
    }
    if (context == "object key" && starts_with(problem, "invalid number")) {
      // A key must be a string: report the number, which follows '{' or ','.
      size_t start = bad;
      while (start > 0 && std::strchr("0123456789+-.eE", s_[start - 1]) != nullptr) --start;
      return fail_at(start, expectation(context, describe(start)));
    }
    if (starts_with(problem, "invalid literal") || starts_with(problem, "invalid BOM")) {
      // A text that starts with 0xEF but no whole byte order mark fails at that first byte.
      const size_t start = starts_with(problem, "invalid BOM") ? 0 : invalid_literal_start(bad);
      return fail_at(start, expectation(context, describe(start)));
    }
    if (starts_with(problem, "invalid number; expected digit after '-'")) {
      return fail_at(bad, "expected a digit after '-', got " + describe(bad));
    }
    if (starts_with(problem, "invalid number; expected digit after '.'")) {
      return fail_at(bad, "expected a digit after '.', got " + describe(bad));
    }
    if (starts_with(problem, "invalid number")) {
      return fail_at(bad, "expected a digit in the exponent, got " + describe(bad));
    }
    if (starts_with(problem, "invalid string: missing closing quote")) {
      return fail_at(bad, "unterminated string");
    }
    if (starts_with(problem, "invalid string: control character")) {
      return fail_at(bad, "raw control character " + describe(bad) + " in a string (escape it)");
    }
    if (starts_with(problem, "invalid string: forbidden character after backslash")) {
      if (bad >= s_.size()) return fail_at(bad, "unterminated string");
      const unsigned char c = static_cast<unsigned char>(s_[bad]);
      if (c >= 0x20 && c < 0x7f) return fail_at(bad, std::string("invalid escape \\") + s_[bad]);
      return fail_at(bad, "invalid escape: backslash followed by " + describe(bad));
    }
    if (starts_with(problem, "invalid string: '\\u' must be followed by 4 hex digits")) {
      return fail_at(bad, "expected 4 hex digits after \\u, got " + describe(bad));
    }
    if (starts_with(problem, "invalid string: surrogate U+DC00..U+DFFF")) {
      const size_t start = bad >= 5 ? bad - 5 : 0;
      return fail_at(start, "lone low surrogate " + escape_text(start));
    }
    if (starts_with(problem, "invalid string: surrogate U+D800..U+DBFF")) {
      const size_t start = high_surrogate_start(bad);
      return fail_at(
          start, "high surrogate " + escape_text(start) + " is not followed by a low surrogate");
    }
    if (starts_with(problem, "invalid string: ill-formed UTF-8 byte")) {
      const size_t start = utf8_sequence_start(bad);
      return fail_at(start, "invalid UTF-8 " + describe(start) + " in a string");
    }
    return fail_at(bad, std::string(problem));  // a message this layer does not know yet
  }

  std::string_view s_;
  const JsonParseOptions& options_;
  const char* last_read_ = nullptr;
  size_t token_end_ = 0;  // the byte after the last value or key read
  Json root_;
  std::vector<Json*> stack_;                           // the open arrays and objects
  std::vector<std::unordered_set<std::string>> keys_;  // the keys of each open object
  Json* member_ = nullptr;                             // the value of the key just read
  Error error_;
};

}  // namespace

Result<Json> parse_json(std::string_view text, const JsonParseOptions& options) {
  try {
    return DocumentBuilder(text, options).run();
  } catch (const std::bad_alloc&) {
    return Error(ErrorCode::MemoryAllocationFailed, "JSON parse: out of memory");
  } catch (const std::exception& e) {
    return Error(ErrorCode::Internal, std::string("JSON parse: ") + e.what());
  } catch (...) {
    return Error(ErrorCode::Internal, "JSON parse: unknown exception");
  }
}

Result<Json> parse_json_file(const std::string& path, const JsonParseOptions& options) {
  // The runtime's file reader: it names the path and the reason, and refuses directories,
  // FIFOs (without waiting for a writer) and devices.
  DEVPLAN_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, read_file(path));
  Result<Json> doc = parse_json(std::string(bytes.begin(), bytes.end()), options);
  if (!doc.ok()) return doc.error().with_context(path);
  return doc;
}

std::string write_json(const Json& value, bool pretty) {
  try {
    return value.dump(pretty ? 2 : -1, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace);
  } catch (...) {
    return std::string();
  }
}

}  // namespace devplan
