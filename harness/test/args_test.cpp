#include <harness/cli/args.h>

#include <gtest/gtest.h>

namespace devplan::cli {
namespace {

const ArgSpec kSpec = {{"json", OptionKind::Flag},
                       {"method", OptionKind::Repeated},
                       {"seed", OptionKind::Single},
                       {"output", OptionKind::Single, 'o'}};

TEST(ArgsTest, OptionsBeforeAndAfterPositionals) {
  Result<ParsedArgs> a = parse_args(kSpec, {"--json", "file.pte", "--method", "m1", "--method=m2",
                                            "-o", "out.svg", "--seed=7"});
  ASSERT_TRUE(a.ok()) << a.error();
  EXPECT_EQ(a->positionals, (std::vector<std::string>{"file.pte"}));
  EXPECT_TRUE(a->has("json"));
  EXPECT_EQ(a->values("method"), (std::vector<std::string>{"m1", "m2"}));
  EXPECT_EQ(a->value("seed"), "7");
  EXPECT_EQ(a->value("output"), "out.svg");
  EXPECT_EQ(a->value("missing", "dflt"), "dflt");
  EXPECT_FALSE(a->has("missing"));
}

TEST(ArgsTest, ValuesMayStartWithADash) {
  Result<ParsedArgs> a = parse_args(kSpec, {"--seed", "-5", "f"});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->value("seed"), "-5");
}

TEST(ArgsTest, DoubleDashEndsOptions) {
  Result<ParsedArgs> a = parse_args(kSpec, {"--", "--json"});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->positionals, (std::vector<std::string>{"--json"}));
  EXPECT_FALSE(a->has("json"));
}

TEST(ArgsTest, UsageErrorsNameTheOption) {
  EXPECT_EQ(parse_args(kSpec, {"--nope"}).error().message(), "unknown option --nope");
  EXPECT_EQ(parse_args(kSpec, {"-x"}).error().message(), "unknown option -x");
  EXPECT_EQ(parse_args(kSpec, {"--seed"}).error().message(), "option --seed needs a value");
  EXPECT_EQ(parse_args(kSpec, {"--json=1"}).error().message(), "option --json takes no value");
  EXPECT_EQ(parse_args(kSpec, {"--seed", "1", "--seed", "2"}).error().message(),
            "option --seed given more than once");
}

TEST(ArgsTest, StrictNumbers) {
  EXPECT_EQ(*parse_int_option("n", "42", 0, 100), 42);
  EXPECT_EQ(parse_int_option("n", "101", 0, 100).error().message(),
            "--n expects an integer from 0 to 100, got '101'");
  EXPECT_FALSE(parse_int_option("n", "4x", 0, 100).ok());
  EXPECT_FALSE(parse_int_option("n", "", 0, 100).ok());
  EXPECT_EQ(*parse_uint_option("n", "18446744073709551615"), UINT64_MAX);
  EXPECT_FALSE(parse_uint_option("n", "-1").ok());
  EXPECT_FALSE(parse_uint_option("n", "18446744073709551616").ok());
  EXPECT_EQ(*parse_double_option("t", "2.5"), 2.5);
  EXPECT_FALSE(parse_double_option("t", "2.5s").ok());
}

}  // namespace
}  // namespace devplan::cli
