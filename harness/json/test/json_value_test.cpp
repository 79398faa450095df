#include <harness/json/json_value.h>

#include <gtest/gtest.h>

namespace devplan {
namespace {

TEST(JsonValueTest, ScalarsKeepTheirKinds) {
  EXPECT_TRUE(JsonValue().is_null());
  EXPECT_TRUE(JsonValue(nullptr).is_null());
  EXPECT_EQ(JsonValue(true).type(), JsonType::Bool);
  EXPECT_EQ(JsonValue(7).type(), JsonType::Int);
  EXPECT_EQ(JsonValue(-7).as_int64(), -7);
  EXPECT_EQ(JsonValue(uint64_t{5}).type(), JsonType::Int);  // fits int64
  EXPECT_EQ(JsonValue(UINT64_MAX).type(), JsonType::UInt);
  EXPECT_EQ(JsonValue(UINT64_MAX).as_uint64(), UINT64_MAX);
  EXPECT_EQ(JsonValue(INT64_MIN).as_int64(), INT64_MIN);
  EXPECT_EQ(JsonValue(2.5).type(), JsonType::Double);
  EXPECT_EQ(JsonValue("x").type(), JsonType::String);
  EXPECT_EQ(JsonValue(std::string("y")).as_string(), "y");
  EXPECT_TRUE(JsonValue(1).is_integer());
  EXPECT_TRUE(JsonValue(1).is_number());
  EXPECT_FALSE(JsonValue(1.0).is_integer());
  EXPECT_STREQ(json_type_name(JsonType::UInt), "integer");
  EXPECT_STREQ(json_type_name(JsonType::Double), "number");
  EXPECT_STREQ(json_type_name(JsonType::Bool), "boolean");
}

TEST(JsonValueTest, CheckedReaders) {
  EXPECT_EQ(*JsonValue(42).get_int64(), 42);
  EXPECT_EQ(*JsonValue(42).get_uint64(), 42u);
  EXPECT_EQ(*JsonValue(42).get_double(), 42.0);
  EXPECT_EQ(*JsonValue(UINT64_MAX).get_uint64(), UINT64_MAX);
  EXPECT_EQ(*JsonValue(true).get_bool(), true);
  EXPECT_EQ(*JsonValue("s").get_string(), "s");

  Result<int64_t> big = JsonValue(UINT64_MAX).get_int64();
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(big.error().message(), "integer 18446744073709551615 does not fit in int64");
  EXPECT_EQ(JsonValue(-3).get_uint64().error().message(),
            "expected a non-negative integer, got -3");
  EXPECT_EQ(JsonValue(1.5).get_int64().error().message(), "expected an integer, got number");
  EXPECT_EQ(JsonValue("1").get_int64().error().message(), "expected an integer, got string");
  EXPECT_EQ(JsonValue(1).get_bool().error().message(), "expected a boolean, got integer");
  EXPECT_EQ(JsonValue().get_string().error().message(), "expected a string, got null");
  EXPECT_EQ(JsonValue::array().get_double().error().message(), "expected a number, got array");
}

TEST(JsonValueTest, ObjectsKeepInsertionOrderAndReplaceInPlace) {
  JsonValue o = JsonValue::object();
  o.set("b", 1);
  o.set("a", 2);
  o.set("c", 3);
  o.set("a", "again");
  ASSERT_EQ(o.size(), 3u);
  EXPECT_EQ(o.as_object()[0].key, "b");
  EXPECT_EQ(o.as_object()[1].key, "a");
  EXPECT_EQ(o.as_object()[1].value, JsonValue("again"));
  EXPECT_EQ(o.as_object()[2].key, "c");
  ASSERT_NE(o.find("c"), nullptr);
  EXPECT_EQ(o.find("c")->as_int64(), 3);
  EXPECT_EQ(o.find("z"), nullptr);
  EXPECT_TRUE(o.contains("b"));
  EXPECT_EQ(JsonValue(1).find("b"), nullptr);

  JsonValue n;  // null becomes an object / array on first use
  n.set("k", nullptr);
  EXPECT_TRUE(n.is_object());
  JsonValue a;
  a.push_back(1);
  a.push_back("two");
  EXPECT_TRUE(a.is_array());
  EXPECT_EQ(a.size(), 2u);
  EXPECT_EQ(a[1], JsonValue("two"));
  EXPECT_EQ(JsonValue(5).size(), 0u);
}

TEST(JsonValueTest, DeepEquality) {
  JsonValue x = JsonValue::object();
  x.set("list", JsonValue::array({1, 2.5, "s", nullptr, true}));
  JsonValue y = x;
  EXPECT_EQ(x, y);
  y.find("list")->as_array()[1] = 2.25;
  EXPECT_NE(x, y);
  EXPECT_NE(JsonValue(1), JsonValue(1.0));  // different kinds
  JsonValue p = JsonValue::object();
  p.set("a", 1);
  p.set("b", 2);
  JsonValue q = JsonValue::object();
  q.set("b", 2);
  q.set("a", 1);
  EXPECT_NE(p, q);  // member order is part of the value
}

}  // namespace
}  // namespace devplan
