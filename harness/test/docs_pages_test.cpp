// Every command's page in docs/commands/ names exactly the options its `--help` lists: each long
// option of the help is on the page, and the page names no long option the command lacks
// (`--help` itself is exempt). Short options (`-o`) must be on the page too. `budget record` and
// `budget check` share docs/commands/budget.md, which must name the options of both.
#include <cctype>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tool_process.h"

namespace {

using devplan::harness::testing::run_tool;
using devplan::harness::testing::Scratch;
using devplan::harness::testing::ToolRun;

struct CommandPage {
  std::vector<std::string> command;  // the words after `devplan`
  std::string page;                  // docs/commands/<page>.md
};

const std::vector<CommandPage>& command_pages() {
  static const std::vector<CommandPage> pages = {{{"inspect"}, "inspect"},
                                                 {{"simulate"}, "simulate"},
                                                 {{"run"}, "run"},
                                                 {{"plan"}, "plan"},
                                                 {{"check"}, "check"},
                                                 {{"probe"}, "probe"},
                                                 {{"replan"}, "replan"},
                                                 {{"plot"}, "plot"},
                                                 {{"fuzz"}, "fuzz"},
                                                 {{"report"}, "report"},
                                                 {{"diff"}, "diff"},
                                                 {{"budget", "record"}, "budget"},
                                                 {{"budget", "check"}, "budget"}};
  return pages;
}

struct Options {
  std::set<std::string> long_names;   // "--output"
  std::set<std::string> short_names;  // "-o"
};

// The options of a CLI11 help text: in its "Options:" section, each line that starts with two
// spaces and a dash names one option, as "-o,--output OUT.pte ..." or "--json  ...". Lines that
// continue a description are indented further, and positionals do not start with a dash.
Options help_options(const std::string& help) {
  Options options;
  std::istringstream lines(help);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("  -", 0) != 0) continue;
    const std::string spec = line.substr(2, line.find(' ', 2) - 2);
    std::istringstream names(spec);
    std::string name;
    while (std::getline(names, name, ',')) {
      if (name.rfind("--", 0) == 0) {
        options.long_names.insert(name);
      } else if (name.size() == 2 && name[0] == '-') {
        options.short_names.insert(name);
      }
    }
  }
  return options;
}

bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_';
}

// Every "--name" the page names: two dashes and a lowercase letter, then letters, digits and
// dashes, where the dashes do not continue a word ("---" of a table, "check---probe" of an
// anchor).
std::set<std::string> page_long_options(const std::string& text) {
  std::set<std::string> names;
  for (size_t i = 0; i + 2 < text.size(); ++i) {
    if (text.compare(i, 2, "--") != 0) continue;
    if (i > 0 && is_word_char(text[i - 1])) continue;
    if (std::islower(static_cast<unsigned char>(text[i + 2])) == 0) continue;
    size_t end = i + 2;
    while (end < text.size() &&
           (std::islower(static_cast<unsigned char>(text[end])) != 0 ||
            std::isdigit(static_cast<unsigned char>(text[end])) != 0 || text[end] == '-')) {
      ++end;
    }
    while (text[end - 1] == '-') --end;
    names.insert(text.substr(i, end - i));
  }
  return names;
}

// Whether the page names the short option `name` ("-o") as a word of its own.
bool page_names_short_option(const std::string& text, const std::string& name) {
  for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    const bool starts = at == 0 || !is_word_char(text[at - 1]);
    const size_t after = at + name.size();
    const bool ends = after == text.size() || !is_word_char(text[after]);
    if (starts && ends) return true;
  }
  return false;
}

std::string joined(const std::set<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : " ") + name;
  return text;
}

std::string command_text(const std::vector<std::string>& words) {
  std::string text = "devplan";
  for (const std::string& word : words) text += " " + word;
  return text;
}

TEST(DocsPages, EachCommandPageNamesExactlyTheOptionsOfItsHelp) {
  Scratch scratch;
  std::map<std::string, Options> wanted;        // by page: the options of its commands' help
  std::map<std::string, std::string> commands;  // by page: the commands it documents
  for (const CommandPage& c : command_pages()) {
    std::vector<std::string> args = c.command;
    args.push_back("--help");
    const ToolRun help = run_tool(scratch, args);
    ASSERT_EQ(help.exit_code, 0) << command_text(c.command) << " --help: " << help.err;
    const Options options = help_options(help.out);
    // Guards against a help format this parser no longer reads: every command has --help and
    // at least one option of its own.
    EXPECT_EQ(options.long_names.count("--help"), 1u) << command_text(c.command);
    EXPECT_GE(options.long_names.size(), 2u) << command_text(c.command) << " --help:\n" << help.out;
    Options& page = wanted[c.page];
    page.long_names.insert(options.long_names.begin(), options.long_names.end());
    page.short_names.insert(options.short_names.begin(), options.short_names.end());
    commands[c.page] += (commands[c.page].empty() ? "" : " and ") + command_text(c.command);
  }

  for (const auto& [page, options] : wanted) {
    const std::string path = std::string(DEVPLAN_SOURCE_DIR) + "/docs/commands/" + page + ".md";
    std::ifstream in(path);
    ASSERT_TRUE(in) << commands[page] << ": no page " << path;
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::set<std::string> named = page_long_options(text);

    std::set<std::string> missing;
    for (const std::string& name : options.long_names) {
      if (name != "--help" && named.count(name) == 0) missing.insert(name);
    }
    std::set<std::string> extra;
    for (const std::string& name : named) {
      if (name != "--help" && options.long_names.count(name) == 0) extra.insert(name);
    }
    std::set<std::string> missing_short;
    for (const std::string& name : options.short_names) {
      if (name != "-h" && !page_names_short_option(text, name)) missing_short.insert(name);
    }
    EXPECT_TRUE(missing.empty()) << commands[page] << ": docs/commands/" << page
                                 << ".md does not name the options " << joined(missing);
    EXPECT_TRUE(extra.empty()) << commands[page] << ": docs/commands/" << page
                               << ".md names options the command lacks: " << joined(extra);
    EXPECT_TRUE(missing_short.empty())
        << commands[page] << ": docs/commands/" << page << ".md does not name the short options "
        << joined(missing_short);
  }
}

// A new command gets a page: every subcommand `devplan --help` lists (but `help`) is one of the
// commands above.
TEST(DocsPages, EveryCommandHasAPage) {
  Scratch scratch;
  const ToolRun help = run_tool(scratch, {"--help"});
  ASSERT_EQ(help.exit_code, 0) << help.err;
  std::set<std::string> documented;
  for (const CommandPage& c : command_pages()) documented.insert(c.command[0]);
  std::istringstream lines(help.out);
  std::string line;
  bool in_subcommands = false;
  size_t listed = 0;
  while (std::getline(lines, line)) {
    if (line == "Subcommands:") {
      in_subcommands = true;
    } else if (line.empty()) {
      in_subcommands = false;
    } else if (in_subcommands && line.rfind("  ", 0) == 0) {
      const std::string name = line.substr(2, line.find(' ', 2) - 2);
      ++listed;
      if (name != "help") {
        EXPECT_EQ(documented.count(name), 1u)
            << "devplan " << name << " has no page in docs/commands/ (or no entry above)";
      }
    }
  }
  EXPECT_GE(listed, documented.size()) << "no subcommands read from:\n" << help.out;
}

TEST(DocsPages, TheOptionReadersReadWhatTheyShould) {
  const Options help = help_options(
      "Usage: devplan plan [OPTIONS] [GRAPH.json]\n\nPositionals:\n"
      "  GRAPH.json TEXT Excludes: --intervals\n\nOptions:\n"
      "  -h,--help                   Print this help message and exit\n"
      "  -o,--output OUT.pte|OUT.csv the program to write\n"
      "  --max-device-allocation SIZE\n"
      "                              refuse one device allocation above SIZE (none with "
      "--device cuda)\n");
  EXPECT_EQ(help.long_names,
            (std::set<std::string>{"--help", "--output", "--max-device-allocation"}));
  EXPECT_EQ(help.short_names, (std::set<std::string>{"-h", "-o"}));

  EXPECT_EQ(page_long_options("| --- | `--json` and --data=FILE, see probe.md#check---probe; "
                              "a-b--c, --Upper, --x-y- and [run](run.md#--input)."),
            (std::set<std::string>{"--json", "--data", "--x-y", "--input"}));
  EXPECT_TRUE(page_names_short_option("`-o`, `--output`", "-o"));
  EXPECT_FALSE(page_names_short_option("use -of or x-o or --output", "-o"));
}

}  // namespace
