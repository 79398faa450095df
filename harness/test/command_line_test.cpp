// The command-line layer under every command: values that start with '-' after short and long
// options, `--name=value`, `--`, and what is not an option's value.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include <harness/options/command_line.h>

namespace devplan::cli {
namespace {

struct Parsed {
  std::optional<int> done;
  std::string output;
  std::vector<std::string> inputs;
  std::vector<std::string> files;
  bool json = false;
  std::string err;
};

Parsed parse(const std::vector<std::string>& args) {
  Parsed p;
  std::unique_ptr<CLI::App> app = make_command_app("test", "a test command");
  app->add_option("-o,--output", p.output, "where");
  add_repeated_option(*app, "--input", p.inputs, "values");
  app->add_option("FILE", p.files, "files");
  app->add_flag("--json", p.json, "json");
  std::ostringstream out, err;
  p.done = parse_command_line(*app, args, out, err);
  p.err = err.str();
  return p;
}

TEST(CommandLine, AValueAfterAShortOptionMayStartWithADash) {
  Parsed p = parse({"-o", "-x.svg", "a.pte"});
  EXPECT_EQ(p.done, std::nullopt) << p.err;
  EXPECT_EQ(p.output, "-x.svg");
  EXPECT_EQ(p.files, std::vector<std::string>{"a.pte"});
  p = parse({"-o", "-", "a.pte"});
  EXPECT_EQ(p.done, std::nullopt) << p.err;
  EXPECT_EQ(p.output, "-");
  // Even a word that names an option is the value of the short option before it.
  p = parse({"-o", "--json", "a.pte"});
  EXPECT_EQ(p.done, std::nullopt) << p.err;
  EXPECT_EQ(p.output, "--json");
  EXPECT_FALSE(p.json);
  p = parse({"a.pte", "-o", "-h"});
  EXPECT_EQ(p.done, std::nullopt) << p.err;
  EXPECT_EQ(p.output, "-h");
  // "--" right after an option that takes a value is that value, not the end of the options.
  p = parse({"a.pte", "-o", "--", "b.pte"});
  EXPECT_EQ(p.done, std::nullopt) << p.err;
  EXPECT_EQ(p.output, "--");
  EXPECT_EQ(p.files, (std::vector<std::string>{"a.pte", "b.pte"}));
}

TEST(CommandLine, AValueAfterALongOptionMayStartWithADash) {
  Parsed p = parse({"a.pte", "--input", "-inf", "--input=-2", "--output", "--json"});
  EXPECT_EQ(p.done, std::nullopt) << p.err;
  EXPECT_EQ(p.inputs, (std::vector<std::string>{"-inf", "-2"}));
  EXPECT_EQ(p.output, "--json");  // the word after --output is its value, whatever it looks like
  EXPECT_FALSE(p.json);
}

TEST(CommandLine, FlagsAndWordsAfterDoubleDashAreNotJoined) {
  Parsed p = parse({"--json", "a.pte", "--", "-o", "--input"});
  EXPECT_EQ(p.done, std::nullopt) << p.err;
  EXPECT_TRUE(p.json);
  EXPECT_EQ(p.files, (std::vector<std::string>{"a.pte", "-o", "--input"}));
  EXPECT_EQ(p.output, "");
  // An option with nothing after it is a usage error naming it.
  p = parse({"a.pte", "-o"});
  EXPECT_EQ(p.done, std::optional<int>(kExitUsage));
  EXPECT_EQ(p.err,
            "devplan test: --output: 1 required TEXT missing\nRun 'devplan test --help' for the "
            "options.\n");
}

}  // namespace
}  // namespace devplan::cli
