#include <harness/json/json_writer.h>

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include <harness/json/json_parser.h>

namespace devplan {
namespace {

TEST(JsonWriterTest, CompactAndPretty) {
  JsonValue doc = JsonValue::object();
  doc.set("name", "forward");
  doc.set("shape", JsonValue::array({2, 2}));
  doc.set("empty", JsonValue::array());
  doc.set("none", JsonValue::object());
  doc.set("nested", JsonValue::object({{"x", nullptr}, {"y", false}}));
  EXPECT_EQ(write_json(doc),
            R"({"name":"forward","shape":[2,2],"empty":[],"none":{},"nested":{"x":null,"y":false}})");
  JsonWriteOptions pretty;
  pretty.pretty = true;
  EXPECT_EQ(write_json(doc, pretty),
            "{\n"
            "  \"name\": \"forward\",\n"
            "  \"shape\": [\n"
            "    2,\n"
            "    2\n"
            "  ],\n"
            "  \"empty\": [],\n"
            "  \"none\": {},\n"
            "  \"nested\": {\n"
            "    \"x\": null,\n"
            "    \"y\": false\n"
            "  }\n"
            "}");
  pretty.indent = 1;
  EXPECT_EQ(write_json(JsonValue::array({1}), pretty), "[\n 1\n]");
  EXPECT_EQ(write_json(JsonValue(true), pretty), "true");
}

TEST(JsonWriterTest, Integers) {
  EXPECT_EQ(write_json(JsonValue(INT64_MIN)), "-9223372036854775808");
  EXPECT_EQ(write_json(JsonValue(INT64_MAX)), "9223372036854775807");
  EXPECT_EQ(write_json(JsonValue(UINT64_MAX)), "18446744073709551615");
  EXPECT_EQ(write_json(JsonValue(0)), "0");
}

TEST(JsonWriterTest, DoublesShortestRoundTrip) {
  EXPECT_EQ(write_json(JsonValue(0.1)), "0.1");
  EXPECT_EQ(write_json(JsonValue(1.0)), "1.0");
  EXPECT_EQ(write_json(JsonValue(-0.0)), "-0.0");
  EXPECT_EQ(write_json(JsonValue(2.5)), "2.5");
  EXPECT_EQ(write_json(JsonValue(1e20)), "1e+20");
  EXPECT_EQ(write_json(JsonValue(123456789.0)), "123456789.0");
  EXPECT_EQ(write_json(JsonValue(5e-324)), "5e-324");
  EXPECT_EQ(write_json(JsonValue(std::nan(""))), "null");
  EXPECT_EQ(write_json(JsonValue(std::numeric_limits<double>::infinity())), "null");
  for (double d : {0.1, 1.0 / 3.0, 2.0 / 3.0, 1e-300, 1.7976931348623157e308, 4.35, 100.0, -7.25e-5}) {
    Result<JsonValue> back = parse_json(write_json(JsonValue(d)));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->type(), JsonType::Double);
    EXPECT_EQ(back->as_double(), d);
  }
}

TEST(JsonWriterTest, StringEscaping) {
  EXPECT_EQ(write_json(JsonValue("a\"b\\c/d")), R"("a\"b\\c/d")");
  EXPECT_EQ(write_json(JsonValue("\b\f\n\r\t")), R"("\b\f\n\r\t")");
  EXPECT_EQ(write_json(JsonValue(std::string("\x01\x1f\x00", 3))), R"("\u0001\u001f\u0000")");
  EXPECT_EQ(write_json(JsonValue("caf\xC3\xA9 \xF0\x9F\x98\x80")), "\"caf\xC3\xA9 \xF0\x9F\x98\x80\"");
  // Invalid UTF-8 becomes U+FFFD, so the output stays valid.
  EXPECT_EQ(write_json(JsonValue("x\xFFy\xC3")), "\"x\xEF\xBF\xBDy\xEF\xBF\xBD\"");
  JsonValue key = JsonValue::object();
  key.set("k\"ey", 1);
  EXPECT_EQ(write_json(key), R"({"k\"ey":1})");
}

TEST(JsonWriterTest, RoundTrip) {
  const std::string text =
      R"({"name":"forward","alignment":16,"big":18446744073709551615,"neg":-9223372036854775808,)"
      R"("f":[0.5,1e-07,-3.0],"s":"\u0001\"é","n":null,"b":[true,false],"o":{"z":{},"a":[]}})";
  Result<JsonValue> v = parse_json(text);
  ASSERT_TRUE(v.ok()) << v.error();
  EXPECT_EQ(write_json(*v), text);
  JsonWriteOptions pretty;
  pretty.pretty = true;
  Result<JsonValue> again = parse_json(write_json(*v, pretty));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *v);
}

}  // namespace
}  // namespace devplan
