#include <harness/json/json.h>

#include <sys/stat.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>

#include <gtest/gtest.h>

namespace devplan {
namespace {

Json parse_ok(const std::string& text, const JsonParseOptions& options = {}) {
  Result<Json> v = parse_json(text, options);
  EXPECT_TRUE(v.ok()) << text << ": " << v.error();
  return v.ok() ? *v : Json();
}

std::string parse_error(const std::string& text, const JsonParseOptions& options = {}) {
  Result<Json> v = parse_json(text, options);
  if (v.ok()) return "parsed: " + write_json(*v);
  EXPECT_EQ(v.code(), ErrorCode::InvalidArgument);
  return v.error().message();
}

TEST(JsonParseTest, Scalars) {
  EXPECT_EQ(parse_ok("null"), Json());
  EXPECT_EQ(parse_ok(" true "), Json(true));
  EXPECT_EQ(parse_ok("false"), Json(false));
  EXPECT_EQ(parse_ok("\"hi\""), Json("hi"));
  const Json zero = parse_ok("0");
  EXPECT_TRUE(zero.is_number_unsigned());
  EXPECT_EQ(zero.get<uint64_t>(), 0u);
  const Json negative = parse_ok("-12");
  EXPECT_TRUE(negative.is_number_integer());
  EXPECT_FALSE(negative.is_number_unsigned());
  EXPECT_EQ(negative.get<int64_t>(), -12);
  EXPECT_TRUE(parse_ok("2.5").is_number_float());
  EXPECT_EQ(parse_ok("2.5").get<double>(), 2.5);
  EXPECT_EQ(parse_ok("1e3").get<double>(), 1000.0);
  EXPECT_EQ(parse_ok("1E-2").get<double>(), 0.01);
  EXPECT_EQ(parse_ok("-0.5e+1").get<double>(), -5.0);
}

TEST(JsonParseTest, IntegersAreExact) {
  const Json max = parse_ok("9223372036854775807");
  EXPECT_TRUE(max.is_number_unsigned());
  EXPECT_EQ(max.get<int64_t>(), INT64_MAX);
  const Json min = parse_ok("-9223372036854775808");
  EXPECT_TRUE(min.is_number_integer());
  EXPECT_FALSE(min.is_number_unsigned());
  EXPECT_EQ(min.get<int64_t>(), INT64_MIN);
  const Json umax = parse_ok("18446744073709551615");
  EXPECT_TRUE(umax.is_number_unsigned());
  EXPECT_EQ(umax.get<uint64_t>(), UINT64_MAX);
  // And back, digit for digit.
  EXPECT_EQ(write_json(parse_ok("[9223372036854775807,-9223372036854775808,18446744073709551615]")),
            "[9223372036854775807,-9223372036854775808,18446744073709551615]");
  EXPECT_EQ(write_json(Json(INT64_MIN)), "-9223372036854775808");
  EXPECT_EQ(write_json(Json(UINT64_MAX)), "18446744073709551615");

  // Past uint64 or below int64: a double.
  const Json big = parse_ok("18446744073709551616");
  EXPECT_TRUE(big.is_number_float());
  EXPECT_EQ(big.get<double>(), 18446744073709551616.0);
  const Json low = parse_ok("-9223372036854775809");
  EXPECT_TRUE(low.is_number_float());
  EXPECT_EQ(low.get<double>(), -9223372036854775808.0);
  // "-0" is the integer 0.
  const Json minus_zero = parse_ok("-0");
  EXPECT_TRUE(minus_zero.is_number_integer());
  EXPECT_EQ(minus_zero.get<int64_t>(), 0);
}

TEST(JsonParseTest, DoublesOutOfRange) {
  EXPECT_EQ(parse_error("1e400"),
            "JSON parse error at line 1, column 1: number 1e400 is out of the range of a double");
  EXPECT_EQ(parse_error("[1e400]"),
            "JSON parse error at line 1, column 2: number 1e400 is out of the range of a double");
  EXPECT_EQ(
      parse_error("{\"a\":\n -1.5e400 }"),
      "JSON parse error at line 2, column 2: number -1.5e400 is out of the range of a double");
  // Too small is not an error: it underflows to zero.
  const Json tiny = parse_ok("1e-400");
  EXPECT_TRUE(tiny.is_number_float());
  EXPECT_EQ(tiny.get<double>(), 0.0);
  EXPECT_EQ(parse_ok("1.7976931348623157e308").get<double>(), std::numeric_limits<double>::max());
}

TEST(JsonParseTest, ContainersKeepOrderAndStringsDecode) {
  const Json v = parse_ok(R"({"z": [1, {"b": null}, []], "c": {}, "a": "x\"\\\/\b\f\n\r\t"})");
  ASSERT_TRUE(v.is_object());
  EXPECT_EQ(v.begin().key(), "z");
  EXPECT_EQ(write_json(v), R"({"z":[1,{"b":null},[]],"c":{},"a":"x\"\\/\b\f\n\r\t"})");
  EXPECT_EQ(v["z"].size(), 3u);
  EXPECT_TRUE(v["z"][1]["b"].is_null());
  EXPECT_EQ(v["c"].size(), 0u);
  EXPECT_EQ(v["a"].get<std::string>(), "x\"\\/\b\f\n\r\t");
  EXPECT_EQ(parse_ok(R"("\u0041\u00e9\u20ac\ud83d\ude00")").get<std::string>(),
            "A\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
  EXPECT_EQ(parse_ok("\"caf\xC3\xA9\"").get<std::string>(), "caf\xC3\xA9");
  EXPECT_EQ(parse_ok("\"\xEF\xBF\xBD\"").get<std::string>(), "\xEF\xBF\xBD");  // U+FFFD itself
  EXPECT_EQ(parse_ok("\"\\u0000\"").get<std::string>(), std::string(1, '\0'));
  EXPECT_EQ(parse_ok(" \t\r\n[ ]\n").size(), 0u);
}

TEST(JsonParseTest, SyntaxErrorsSayWhereAndWhat) {
  EXPECT_EQ(parse_error(""),
            "JSON parse error at line 1, column 1: expected a value, got end of input");
  EXPECT_EQ(parse_error("  "),
            "JSON parse error at line 1, column 3: expected a value, got end of input");
  EXPECT_EQ(parse_error("[1,]"), "JSON parse error at line 1, column 4: expected a value, got ']'");
  EXPECT_EQ(parse_error("{\"a\":1,}"),
            "JSON parse error at line 1, column 8: expected a string key, got '}'");
  EXPECT_EQ(parse_error("{\n  \"a\" 1\n}"),
            "JSON parse error at line 2, column 7: expected ':' after object key, got '1'");
  EXPECT_EQ(parse_error("{\"a\" true}"),
            "JSON parse error at line 1, column 6: expected ':' after object key, got 't'");
  EXPECT_EQ(
      parse_error("[1 2]"),
      "JSON parse error at line 1, column 4: expected ',' or ']' after array element, got '2'");
  EXPECT_EQ(
      parse_error("[1 false]"),
      "JSON parse error at line 1, column 4: expected ',' or ']' after array element, got 'f'");
  EXPECT_EQ(
      parse_error("[1 null]"),
      "JSON parse error at line 1, column 4: expected ',' or ']' after array element, got 'n'");
  EXPECT_EQ(
      parse_error("{\"a\":1 \"b\":2}"),
      "JSON parse error at line 1, column 8: expected ',' or '}' after object member, got '\"'");
  EXPECT_EQ(parse_error("{'a':1}"),
            "JSON parse error at line 1, column 2: expected a string key, got '''");
  EXPECT_EQ(parse_error("1 2"),
            "JSON parse error at line 1, column 3: unexpected '2' after the JSON value");
  EXPECT_EQ(parse_error("{} \"x\""),
            "JSON parse error at line 1, column 4: unexpected '\"' after the JSON value");
  EXPECT_EQ(parse_error("tru"), "JSON parse error at line 1, column 1: expected a value, got 't'");
  EXPECT_EQ(parse_error("[nul]"),
            "JSON parse error at line 1, column 2: expected a value, got 'n'");
  EXPECT_EQ(
      parse_error("[truex]"),
      "JSON parse error at line 1, column 6: expected ',' or ']' after array element, got 'x'");
  EXPECT_EQ(parse_error("[1] // c"),
            "JSON parse error at line 1, column 5: unexpected '/' after the JSON value");
  EXPECT_EQ(parse_error("[\n\n  NaN]"),
            "JSON parse error at line 3, column 3: expected a value, got 'N'");
  EXPECT_EQ(parse_error("Infinity"),
            "JSON parse error at line 1, column 1: expected a value, got 'I'");
  EXPECT_EQ(parse_error("\xEF\xBB\xBF{}"),
            "JSON parse error at line 1, column 1: unexpected byte order mark (U+FEFF); JSON text "
            "must not start with one");
  EXPECT_EQ(parse_error("\xEF{}"),
            "JSON parse error at line 1, column 1: expected a value, got byte 0xef");
  EXPECT_EQ(parse_error("[1"),
            "JSON parse error at line 1, column 3: expected ',' or ']' after array element, got "
            "end of input");
  EXPECT_EQ(
      parse_error("{\"a\""),
      "JSON parse error at line 1, column 5: expected ':' after object key, got end of input");
  EXPECT_EQ(parse_error("\x01"),
            "JSON parse error at line 1, column 1: expected a value, got byte 0x01");
  // Lines count LF only; a CR is one more byte of the line.
  EXPECT_EQ(parse_error("[1,\r\n2,\r\n]"),
            "JSON parse error at line 3, column 1: expected a value, got ']'");
}

TEST(JsonParseTest, AMisplacedTokenIsReportedBeforeWhatIsWrongInsideIt) {
  EXPECT_EQ(parse_error("1 \"\\x\""),
            "JSON parse error at line 1, column 3: unexpected '\"' after the JSON value");
  EXPECT_EQ(
      parse_error("[1 \"a\\x\"]"),
      "JSON parse error at line 1, column 4: expected ',' or ']' after array element, got '\"'");
  EXPECT_EQ(
      parse_error("{\"a\":[] \"\xFF\"}"),
      "JSON parse error at line 1, column 9: expected ',' or '}' after object member, got '\"'");
  EXPECT_EQ(parse_error("{\"a\"\n  \"\\q\"}"),
            "JSON parse error at line 2, column 3: expected ':' after object key, got '\"'");
  EXPECT_EQ(
      parse_error("[1-]"),
      "JSON parse error at line 1, column 3: expected ',' or ']' after array element, got '-'");
  EXPECT_EQ(parse_error("[01.]"),
            "JSON parse error at line 1, column 3: leading zeros are not allowed");
  EXPECT_EQ(parse_error("{12.}"),
            "JSON parse error at line 1, column 2: expected a string key, got '1'");
  EXPECT_EQ(parse_error("{\"a\":1, -}"),
            "JSON parse error at line 1, column 9: expected a string key, got '-'");
  EXPECT_EQ(
      parse_error("[true nul]"),
      "JSON parse error at line 1, column 7: expected ',' or ']' after array element, got 'n'");
  // Where a value or a key may start, the flaw inside the token is the error.
  EXPECT_EQ(parse_error("[1, \"a\\x\"]"),
            "JSON parse error at line 1, column 8: invalid escape \\x");
  EXPECT_EQ(parse_error("{\"a\\x\": 1}"),
            "JSON parse error at line 1, column 5: invalid escape \\x");
}

TEST(JsonParseTest, NulBytesAreNotTheEndOfTheText) {
  EXPECT_EQ(parse_error(std::string("[1]\0", 4)),
            "JSON parse error at line 1, column 4: unexpected byte 0x00 after the JSON value");
  EXPECT_EQ(parse_error(std::string("[1] \0 x", 7)),
            "JSON parse error at line 1, column 5: unexpected byte 0x00 after the JSON value");
  EXPECT_EQ(parse_error(std::string("[1,\0]", 5)),
            "JSON parse error at line 1, column 4: expected a value, got byte 0x00");
  EXPECT_EQ(parse_error(std::string("\"a\0\"", 4)),
            "JSON parse error at line 1, column 3: raw control character byte 0x00 in a string "
            "(escape it)");
}

TEST(JsonParseTest, NumberErrors) {
  EXPECT_EQ(parse_error("01"),
            "JSON parse error at line 1, column 2: leading zeros are not allowed");
  EXPECT_EQ(parse_error("-01"),
            "JSON parse error at line 1, column 3: leading zeros are not allowed");
  EXPECT_EQ(parse_error("[0, 007]"),
            "JSON parse error at line 1, column 6: leading zeros are not allowed");
  EXPECT_EQ(parse_error("0-1"),
            "JSON parse error at line 1, column 2: unexpected '-' after the JSON value");
  EXPECT_EQ(parse_error("+1"), "JSON parse error at line 1, column 1: expected a value, got '+'");
  EXPECT_EQ(parse_error("-"),
            "JSON parse error at line 1, column 2: expected a digit after '-', got end of input");
  EXPECT_EQ(parse_error("[-x]"),
            "JSON parse error at line 1, column 3: expected a digit after '-', got 'x'");
  EXPECT_EQ(parse_error("1."),
            "JSON parse error at line 1, column 3: expected a digit after '.', got end of input");
  EXPECT_EQ(parse_error(".5"), "JSON parse error at line 1, column 1: expected a value, got '.'");
  EXPECT_EQ(
      parse_error("1e"),
      "JSON parse error at line 1, column 3: expected a digit in the exponent, got end of input");
  EXPECT_EQ(
      parse_error("1e+"),
      "JSON parse error at line 1, column 4: expected a digit in the exponent, got end of input");
  EXPECT_EQ(parse_error("[1e+]"),
            "JSON parse error at line 1, column 5: expected a digit in the exponent, got ']'");
  EXPECT_EQ(parse_error("0x10"),
            "JSON parse error at line 1, column 2: unexpected 'x' after the JSON value");
}

TEST(JsonParseTest, StringErrors) {
  EXPECT_EQ(parse_error("\"abc"), "JSON parse error at line 1, column 5: unterminated string");
  EXPECT_EQ(parse_error("\"abc\\"), "JSON parse error at line 1, column 6: unterminated string");
  EXPECT_EQ(parse_error("\"a\tb\""),
            "JSON parse error at line 1, column 3: raw control character byte 0x09 in a string "
            "(escape it)");
  EXPECT_EQ(parse_error("\"\\x\""), "JSON parse error at line 1, column 3: invalid escape \\x");
  EXPECT_EQ(
      parse_error("\"\\\x01\""),
      "JSON parse error at line 1, column 3: invalid escape: backslash followed by byte 0x01");
  EXPECT_EQ(parse_error("\"\\u12G4\""),
            "JSON parse error at line 1, column 6: expected 4 hex digits after \\u, got 'G'");
  EXPECT_EQ(
      parse_error("\"\\u12"),
      "JSON parse error at line 1, column 6: expected 4 hex digits after \\u, got end of input");
  EXPECT_EQ(parse_error("\"\\udc00\""),
            "JSON parse error at line 1, column 2: lone low surrogate \\udc00");
  EXPECT_EQ(parse_error("[\"ab\\uDFFF\"]"),
            "JSON parse error at line 1, column 5: lone low surrogate \\uDFFF");
  EXPECT_EQ(parse_error("\"\\ud83dx\""),
            "JSON parse error at line 1, column 2: high surrogate \\ud83d is not followed by a low "
            "surrogate");
  EXPECT_EQ(parse_error("\"\\ud83d\\n\""),
            "JSON parse error at line 1, column 2: high surrogate \\ud83d is not followed by a low "
            "surrogate");
  EXPECT_EQ(parse_error("\"\\ud83d\\u0041\""),
            "JSON parse error at line 1, column 2: high surrogate \\ud83d is not followed by a low "
            "surrogate");
  EXPECT_EQ(parse_error("\"\\ud83d\\ud83d\""),
            "JSON parse error at line 1, column 2: high surrogate \\ud83d is not followed by a low "
            "surrogate");
  EXPECT_EQ(parse_error("\"\\ud83d"),
            "JSON parse error at line 1, column 2: high surrogate \\ud83d is not followed by a low "
            "surrogate");
  EXPECT_EQ(parse_error("\"\xC3\""),
            "JSON parse error at line 1, column 2: invalid UTF-8 byte 0xc3 in a string");
  EXPECT_EQ(parse_error("\"\xC3"),
            "JSON parse error at line 1, column 2: invalid UTF-8 byte 0xc3 in a string");
  EXPECT_EQ(parse_error("\"\xC0\xAF\""),
            "JSON parse error at line 1, column 2: invalid UTF-8 byte 0xc0 in a string");
  EXPECT_EQ(parse_error("\"\xED\xA0\x80\""),
            "JSON parse error at line 1, column 2: invalid UTF-8 byte 0xed in a string");
  EXPECT_EQ(parse_error("\"\xF4\x90\x80\x80\""),
            "JSON parse error at line 1, column 2: invalid UTF-8 byte 0xf4 in a string");
  EXPECT_EQ(parse_error("\"\xF0\x9F\x98\x41\""),
            "JSON parse error at line 1, column 2: invalid UTF-8 byte 0xf0 in a string");
  EXPECT_EQ(parse_error("\"\xC3\xA9\x80\""),
            "JSON parse error at line 1, column 4: invalid UTF-8 byte 0x80 in a string");
  EXPECT_EQ(parse_error("\"\xFF\""),
            "JSON parse error at line 1, column 2: invalid UTF-8 byte 0xff in a string");
}

TEST(JsonParseTest, DuplicateKeys) {
  EXPECT_EQ(parse_error("{\"a\":1,\"a\":2}"),
            "JSON parse error at line 1, column 8: duplicate key \"a\"");
  EXPECT_EQ(parse_error("{\"b\":1,\n \"a\\\"\\\\\":2, \"a\\\"\\\\\":3}"),
            "JSON parse error at line 2, column 13: duplicate key \"a\"\\\"");
  EXPECT_EQ(parse_error("[{\"a\":{\"a\":1}}, {\"a\":1, \"b\":{}, \"a\":1}]"),
            "JSON parse error at line 1, column 33: duplicate key \"a\"");
  // The same key in different objects is fine.
  EXPECT_EQ(write_json(parse_ok("{\"a\":{\"a\":1}}")), "{\"a\":{\"a\":1}}");
  // Many members: each one checked against all the others.
  std::string many = "{";
  for (int i = 0; i < 5000; ++i)
    many += "\"k" + std::to_string(i) + "\":" + std::to_string(i) + ",";
  EXPECT_EQ(parse_ok(many + "\"end\":0}").size(), 5001u);
  EXPECT_EQ(parse_error(many + "\"k4999\":0}"), "JSON parse error at line 1, column " +
                                                    std::to_string(many.size() + 1) +
                                                    ": duplicate key \"k4999\"");

  JsonParseOptions allow;
  allow.allow_duplicate_keys = true;
  const Json last = parse_ok("{\"a\":1,\"b\":0,\"a\":2}", allow);
  EXPECT_EQ(last.size(), 2u);
  EXPECT_EQ(write_json(last), "{\"a\":2,\"b\":0}");
}

std::string nested(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

TEST(JsonParseTest, DepthLimit) {
  JsonParseOptions shallow;
  shallow.max_depth = 3;
  EXPECT_EQ(write_json(parse_ok("[[[1]]]", shallow)), "[[[1]]]");
  EXPECT_EQ(write_json(parse_ok("{\"a\":[{}]}", shallow)), "{\"a\":[{}]}");
  EXPECT_EQ(parse_error("[[[[1]]]]", shallow),
            "JSON parse error at line 1, column 4: nesting deeper than 3 levels");
  EXPECT_EQ(parse_error("[{\"a\":[{}]}]", shallow),
            "JSON parse error at line 1, column 8: nesting deeper than 3 levels");
  JsonParseOptions none;
  none.max_depth = 0;
  EXPECT_EQ(parse_ok("7", none), Json(7));
  EXPECT_EQ(parse_error("{}", none),
            "JSON parse error at line 1, column 1: nesting deeper than 0 levels");

  // The default: 256 levels parse, 257 do not.
  const Result<Json> at_limit = parse_json(nested(256));
  ASSERT_TRUE(at_limit.ok()) << at_limit.error();
  EXPECT_EQ(write_json(*at_limit), nested(256));
  EXPECT_EQ(parse_error(nested(257)),
            "JSON parse error at line 1, column 257: nesting deeper than 256 levels");
  // A very deep text stops at the limit without exhausting the stack.
  EXPECT_EQ(parse_error(std::string(100000, '[')),
            "JSON parse error at line 1, column 257: nesting deeper than 256 levels");
}

TEST(JsonWriteTest, CompactAndPretty) {
  const Json doc = parse_ok(R"({"name": "forward", "shape": [2, 2], "empty": [], "none": {},
                               "nested": {"ok": true, "n": null}})");
  EXPECT_EQ(
      write_json(doc),
      R"({"name":"forward","shape":[2,2],"empty":[],"none":{},"nested":{"ok":true,"n":null}})");
  EXPECT_EQ(write_json(doc, true),
            "{\n"
            "  \"name\": \"forward\",\n"
            "  \"shape\": [\n"
            "    2,\n"
            "    2\n"
            "  ],\n"
            "  \"empty\": [],\n"
            "  \"none\": {},\n"
            "  \"nested\": {\n"
            "    \"ok\": true,\n"
            "    \"n\": null\n"
            "  }\n"
            "}");
  EXPECT_EQ(write_json(Json()), "null");
  EXPECT_EQ(write_json(Json::array(), true), "[]");
  // Built in code: members in insertion order.
  Json built;
  built["z"] = 1;
  built["a"] = Json::array({1, "two", 3.5});
  EXPECT_EQ(write_json(built), R"({"z":1,"a":[1,"two",3.5]})");
}

TEST(JsonWriteTest, Doubles) {
  EXPECT_EQ(write_json(Json(1.0)), "1.0");
  EXPECT_EQ(write_json(Json(0.1)), "0.1");
  EXPECT_EQ(write_json(Json(-2.5)), "-2.5");
  EXPECT_EQ(write_json(Json(1e20)), "1e+20");
  EXPECT_EQ(write_json(Json(1.5e-7)), "1.5e-07");
  EXPECT_EQ(write_json(Json(std::numeric_limits<double>::max())), "1.7976931348623157e+308");
  EXPECT_EQ(write_json(Json(std::nan(""))), "null");
  EXPECT_EQ(write_json(Json(std::numeric_limits<double>::infinity())), "null");
  EXPECT_EQ(write_json(Json::array({-std::numeric_limits<double>::infinity()})), "[null]");
  // Every double reads back to itself.
  for (double d : {0.1, 1.0 / 3.0, 123456.789e-300, 5e-324, -7.25e100}) {
    const std::string text = write_json(Json(d));
    EXPECT_EQ(parse_ok(text).get<double>(), d) << text;
  }
}

// Every finite double the reports write reads back to the same bits: every exponent (subnormals
// included) with the smallest, largest and a mixed mantissa, both signs.
TEST(JsonWriteTest, EveryExponentReadsBackToTheSameBits) {
  size_t failures = 0;
  for (uint64_t sign = 0; sign < 2; ++sign) {
    for (uint64_t exponent = 0; exponent < 0x7ff; ++exponent) {
      for (uint64_t mantissa : {uint64_t{0}, uint64_t{1}, (uint64_t{1} << 52) - 1,
                                uint64_t{0x5a5a5a5a5a5a5} ^ (exponent * 0x9e3779b97f4a7)}) {
        const uint64_t bits = sign << 63 | exponent << 52 | (mantissa & ((uint64_t{1} << 52) - 1));
        double d;
        std::memcpy(&d, &bits, sizeof d);
        const std::string text = write_json(Json(d));
        const double back = parse_ok(text).get<double>();
        uint64_t back_bits;
        std::memcpy(&back_bits, &back, sizeof back);
        if (back_bits != bits && ++failures <= 5) ADD_FAILURE() << std::hex << bits << ": " << text;
      }
    }
  }
  EXPECT_EQ(failures, 0u);
}

TEST(JsonWriteTest, StringsAreAlwaysValidJsonAndUtf8) {
  EXPECT_EQ(write_json(Json("a\"b\\c/\n\t\x01\x1f")), "\"a\\\"b\\\\c/\\n\\t\\u0001\\u001f\"");
  EXPECT_EQ(write_json(Json("caf\xC3\xA9 \xF0\x9F\x98\x80")), "\"caf\xC3\xA9 \xF0\x9F\x98\x80\"");
  EXPECT_EQ(write_json(Json("\xEF\xBF\xBD")), "\"\xEF\xBF\xBD\"");  // U+FFFD stays itself
  // Invalid UTF-8 becomes U+FFFD (EF BF BD), in keys as in values.
  EXPECT_EQ(write_json(Json("a\xFFz")), "\"a\xEF\xBF\xBDz\"");
  EXPECT_EQ(write_json(Json("end\xC3")), "\"end\xEF\xBF\xBD\"");
  EXPECT_EQ(write_json(Json("\xC0\xAF")), "\"\xEF\xBF\xBD\xEF\xBF\xBD\"");
  Json keyed;
  keyed["k\xFE"] = "v";
  EXPECT_EQ(write_json(keyed, true), "{\n  \"k\xEF\xBF\xBD\": \"v\"\n}");
  // What was written parses.
  EXPECT_EQ(parse_ok(write_json(Json("a\xFFz"))).get<std::string>(), "a\xEF\xBF\xBDz");
}

TEST(JsonFileTest, ReadsFilesAndNamesThePath) {
  const std::string path = ::testing::TempDir() + "json_test.json";
  {
    std::ofstream out(path);
    out << "{\"k\": [1,\n 2,]}";
  }
  Result<Json> bad = parse_json_file(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(bad.error().message(),
            path + ": JSON parse error at line 2, column 4: expected a value, got ']'");
  {
    std::ofstream out(path);
    out << "{\"k\": [1, 2]}";
  }
  Result<Json> good = parse_json_file(path);
  ASSERT_TRUE(good.ok()) << good.error();
  EXPECT_EQ(write_json(*good), "{\"k\":[1,2]}");

  JsonParseOptions shallow;
  shallow.max_depth = 1;
  Result<Json> deep = parse_json_file(path, shallow);
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.error().message(),
            path + ": JSON parse error at line 1, column 7: nesting deeper than 1 levels");

  std::remove(path.c_str());
  Result<Json> missing = parse_json_file(path);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.code(), ErrorCode::AccessFailed);
  EXPECT_EQ(missing.error().message(), "cannot open '" + path + "': No such file or directory");
}

TEST(JsonFileTest, ADirectoryIsAnErrorNotAnException) {
  std::string dir = ::testing::TempDir();
  if (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  Result<Json> r = parse_json_file(dir);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.code(), ErrorCode::AccessFailed);
  EXPECT_EQ(r.error().message(), "cannot read '" + dir + "': Is a directory");
}

TEST(JsonFileTest, DevicesAndFifosAreErrorsAndNeverBlock) {
  Result<Json> null_device = parse_json_file("/dev/null");
  ASSERT_FALSE(null_device.ok());
  EXPECT_EQ(null_device.error().message(),
            "cannot read '/dev/null': not a regular file (a character device)");
  const std::string fifo = ::testing::TempDir() + "devplan_json_fifo";
  std::remove(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  Result<Json> r = parse_json_file(fifo);  // no writer: this must not wait for one
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(), "cannot read '" + fifo + "': not a regular file (a FIFO)");
  std::remove(fifo.c_str());
}

}  // namespace
}  // namespace devplan
