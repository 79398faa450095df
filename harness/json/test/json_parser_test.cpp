#include <harness/json/json_parser.h>

#include <cmath>
#include <cstdio>
#include <fstream>

#include <gtest/gtest.h>

#include <harness/json/json_writer.h>

namespace devplan {
namespace {

JsonValue parse_ok(const std::string& text) {
  Result<JsonValue> v = parse_json(text);
  EXPECT_TRUE(v.ok()) << text << ": " << v.error();
  return v.ok() ? *v : JsonValue();
}

std::string parse_error(const std::string& text, const JsonParseOptions& options = {}) {
  Result<JsonValue> v = parse_json(text, options);
  if (v.ok()) return "parsed: " + write_json(*v);
  EXPECT_EQ(v.code(), ErrorCode::InvalidArgument);
  return v.error().message();
}

TEST(JsonParserTest, Scalars) {
  EXPECT_EQ(parse_ok("null"), JsonValue());
  EXPECT_EQ(parse_ok(" true "), JsonValue(true));
  EXPECT_EQ(parse_ok("false"), JsonValue(false));
  EXPECT_EQ(parse_ok("0"), JsonValue(0));
  EXPECT_EQ(parse_ok("-12"), JsonValue(-12));
  EXPECT_EQ(parse_ok("\"hi\""), JsonValue("hi"));
  EXPECT_EQ(parse_ok("2.5"), JsonValue(2.5));
  EXPECT_EQ(parse_ok("1e3"), JsonValue(1000.0));
  EXPECT_EQ(parse_ok("1E-2"), JsonValue(0.01));
  EXPECT_EQ(parse_ok("-0.5e+1"), JsonValue(-5.0));
}

TEST(JsonParserTest, IntegersAreExact) {
  EXPECT_EQ(parse_ok("9223372036854775807").as_int64(), INT64_MAX);
  EXPECT_EQ(parse_ok("-9223372036854775808").as_int64(), INT64_MIN);
  JsonValue u = parse_ok("18446744073709551615");
  EXPECT_EQ(u.type(), JsonType::UInt);
  EXPECT_EQ(u.as_uint64(), UINT64_MAX);
  JsonValue big = parse_ok("18446744073709551616");  // past uint64: a double
  EXPECT_EQ(big.type(), JsonType::Double);
  EXPECT_EQ(big.as_double(), 18446744073709551616.0);
  JsonValue neg = parse_ok("-9223372036854775809");
  EXPECT_EQ(neg.type(), JsonType::Double);
  JsonValue minus_zero = parse_ok("-0");
  EXPECT_EQ(minus_zero.type(), JsonType::Double);
  EXPECT_TRUE(std::signbit(minus_zero.as_double()));
}

TEST(JsonParserTest, ContainersAndStrings) {
  JsonValue v = parse_ok(R"({"a": [1, {"b": null}, []], "c": {}, "d": "x\"\\\/\b\f\n\r\t"})");
  ASSERT_TRUE(v.is_object());
  EXPECT_EQ(v.as_object()[0].key, "a");
  EXPECT_EQ(v.find("a")->size(), 3u);
  EXPECT_TRUE((*v.find("a"))[1].find("b")->is_null());
  EXPECT_EQ(v.find("c")->size(), 0u);
  EXPECT_EQ(v.find("d")->as_string(), "x\"\\/\b\f\n\r\t");
  EXPECT_EQ(parse_ok(R"("\u0041\u00e9\u20ac\ud83d\ude00")").as_string(),
            "A\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
  EXPECT_EQ(parse_ok("\"caf\xC3\xA9\"").as_string(), "caf\xC3\xA9");
  EXPECT_EQ(parse_ok("\"\\u0000\"").as_string(), std::string(1, '\0'));
  EXPECT_EQ(parse_ok(" \t\r\n[ ]\n").size(), 0u);
}

TEST(JsonParserTest, SyntaxErrorsSayWhereAndWhat) {
  EXPECT_EQ(parse_error(""), "JSON parse error at line 1, column 1: expected a value, got end of input");
  EXPECT_EQ(parse_error("  "), "JSON parse error at line 1, column 3: expected a value, got end of input");
  EXPECT_EQ(parse_error("[1,]"), "JSON parse error at line 1, column 4: expected a value, got ']'");
  EXPECT_EQ(parse_error("{\"a\":1,}"),
            "JSON parse error at line 1, column 8: expected a string key, got '}'");
  EXPECT_EQ(parse_error("{\n  \"a\" 1\n}"),
            "JSON parse error at line 2, column 7: expected ':' after object key, got '1'");
  EXPECT_EQ(parse_error("[1 2]"),
            "JSON parse error at line 1, column 4: expected ',' or ']' after array element, got '2'");
  EXPECT_EQ(parse_error("{\"a\":1 \"b\":2}"),
            "JSON parse error at line 1, column 8: expected ',' or '}' after object member, got '\"'");
  EXPECT_EQ(parse_error("{'a':1}"), "JSON parse error at line 1, column 2: expected a string key, got '''");
  EXPECT_EQ(parse_error("1 2"), "JSON parse error at line 1, column 3: unexpected '2' after the JSON value");
  EXPECT_EQ(parse_error("tru"), "JSON parse error at line 1, column 1: expected a value, got 't'");
  EXPECT_EQ(parse_error("nul"), "JSON parse error at line 1, column 1: expected a value, got 'n'");
  EXPECT_EQ(parse_error("[1] // c"), "JSON parse error at line 1, column 5: unexpected '/' after the JSON value");
  EXPECT_EQ(parse_error("[\n\n  NaN]"), "JSON parse error at line 3, column 3: expected a value, got 'N'");
  EXPECT_EQ(parse_error("Infinity"), "JSON parse error at line 1, column 1: expected a value, got 'I'");
  EXPECT_EQ(parse_error("\xEF\xBB\xBF{}"),
            "JSON parse error at line 1, column 1: unexpected byte order mark (U+FEFF); JSON text "
            "must not start with one");
  EXPECT_EQ(parse_error("[1"), "JSON parse error at line 1, column 3: expected ',' or ']' after array element, got end of input");
  EXPECT_EQ(parse_error("\x01"), "JSON parse error at line 1, column 1: expected a value, got byte 0x01");
}

TEST(JsonParserTest, NumberErrors) {
  EXPECT_EQ(parse_error("01"), "JSON parse error at line 1, column 2: leading zeros are not allowed");
  EXPECT_EQ(parse_error("-01"), "JSON parse error at line 1, column 3: leading zeros are not allowed");
  EXPECT_EQ(parse_error("+1"), "JSON parse error at line 1, column 1: expected a value, got '+'");
  EXPECT_EQ(parse_error("-"), "JSON parse error at line 1, column 2: expected a digit after '-', got end of input");
  EXPECT_EQ(parse_error("1."), "JSON parse error at line 1, column 3: expected a digit after '.', got end of input");
  EXPECT_EQ(parse_error(".5"), "JSON parse error at line 1, column 1: expected a value, got '.'");
  EXPECT_EQ(parse_error("1e"), "JSON parse error at line 1, column 3: expected a digit in the exponent, got end of input");
  EXPECT_EQ(parse_error("1e+"), "JSON parse error at line 1, column 4: expected a digit in the exponent, got end of input");
  EXPECT_EQ(parse_error("[1e400]"), "JSON parse error at line 1, column 2: number 1e400 is out of the range of a double");
  EXPECT_EQ(parse_error("0x10"), "JSON parse error at line 1, column 2: unexpected 'x' after the JSON value");
}

TEST(JsonParserTest, StringErrors) {
  EXPECT_EQ(parse_error("\"abc"), "JSON parse error at line 1, column 5: unterminated string");
  EXPECT_EQ(parse_error("\"a\tb\""),
            "JSON parse error at line 1, column 3: raw control character byte 0x09 in a string (escape it)");
  EXPECT_EQ(parse_error("\"\\x\""), "JSON parse error at line 1, column 3: invalid escape \\x");
  EXPECT_EQ(parse_error("\"\\u12G4\""),
            "JSON parse error at line 1, column 6: expected 4 hex digits after \\u, got 'G'");
  EXPECT_EQ(parse_error("\"\\udc00\""), "JSON parse error at line 1, column 2: lone low surrogate \\udc00");
  EXPECT_EQ(parse_error("\"\\ud83dx\""),
            "JSON parse error at line 1, column 2: high surrogate \\ud83d is not followed by a low surrogate");
  EXPECT_EQ(parse_error("\"\\ud83d\\u0041\""),
            "JSON parse error at line 1, column 2: high surrogate \\ud83d is not followed by a low surrogate");
  EXPECT_EQ(parse_error("\"\xC3\""), "JSON parse error at line 1, column 2: invalid UTF-8 byte 0xc3 in a string");
  EXPECT_EQ(parse_error("\"\xC0\xAF\""), "JSON parse error at line 1, column 2: invalid UTF-8 byte 0xc0 in a string");
  EXPECT_EQ(parse_error("\"\xED\xA0\x80\""), "JSON parse error at line 1, column 2: invalid UTF-8 byte 0xed in a string");
  EXPECT_EQ(parse_error("\"\xF4\x90\x80\x80\""), "JSON parse error at line 1, column 2: invalid UTF-8 byte 0xf4 in a string");
  EXPECT_EQ(parse_error("\"\xFF\""), "JSON parse error at line 1, column 2: invalid UTF-8 byte 0xff in a string");
}

TEST(JsonParserTest, DuplicateKeysAndDepth) {
  EXPECT_EQ(parse_error("{\"a\":1,\"a\":2}"), "JSON parse error at line 1, column 8: duplicate key \"a\"");
  JsonParseOptions allow;
  allow.allow_duplicate_keys = true;
  Result<JsonValue> last = parse_json("{\"a\":1,\"b\":0,\"a\":2}", allow);
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(last->size(), 2u);
  EXPECT_EQ(last->find("a")->as_int64(), 2);

  JsonParseOptions shallow;
  shallow.max_depth = 3;
  EXPECT_TRUE(parse_json("[[[1]]]", shallow).ok());
  EXPECT_EQ(parse_error("[[[[1]]]]", shallow),
            "JSON parse error at line 1, column 4: nesting deeper than 3 levels");
  EXPECT_EQ(parse_error("[{\"a\":[{}]}]", shallow),
            "JSON parse error at line 1, column 8: nesting deeper than 3 levels");
  // The default limit stops a deep document without exhausting the stack.
  std::string deep(100000, '[');
  EXPECT_EQ(parse_error(deep), "JSON parse error at line 1, column 257: nesting deeper than 256 levels");
}

TEST(JsonParserTest, Files) {
  const std::string path = ::testing::TempDir() + "json_parser_test.json";
  {
    std::ofstream out(path);
    out << "{\"k\": [1,\n 2,]}";
  }
  Result<JsonValue> bad = parse_json_file(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message(),
            path + ": JSON parse error at line 2, column 4: expected a value, got ']'");
  {
    std::ofstream out(path);
    out << "{\"k\": [1, 2]}";
  }
  Result<JsonValue> good = parse_json_file(path);
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(good->find("k")->size(), 2u);
  std::remove(path.c_str());
  Result<JsonValue> missing = parse_json_file(path);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.code(), ErrorCode::NotFound);
  EXPECT_EQ(missing.error().message(), "cannot open '" + path + "': No such file or directory");
}

}  // namespace
}  // namespace devplan
