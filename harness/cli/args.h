// Command-line parsing shared by every `devplan` command. Options may come before or after
// the positional arguments; `--name value` and `--name=value` are both accepted; `--` ends
// options.
//
//   ArgSpec spec{{"json", OptionKind::Flag}, {"method", OptionKind::Repeated}};
//   Result<ParsedArgs> args = parse_args(spec, argv + 2, argc - 2);
//   if (!args.ok()) { print usage; return kExitUsage; }
//   args->has("json"); args->values("method"); args->positionals;
#pragma once

#include <map>
#include <string>
#include <vector>

#include <runtime_ext/core/result.h>

namespace devplan::cli {

// Exit codes shared by every command.
constexpr int kExitOk = 0;
constexpr int kExitError = 1;    // a program, load or execution error, reported cleanly
constexpr int kExitUsage = 2;    // bad command line
constexpr int kExitFinding = 3;  // the harness found a bug: a leak, misuse or overlap

enum class OptionKind {
  Flag,      // --json
  Single,    // --seed 5 (given at most once)
  Repeated,  // --method a --method b
};

struct OptionSpec {
  std::string name;  // without the leading dashes
  OptionKind kind;
  char short_name = 0;  // e.g. 'o' for -o
};

using ArgSpec = std::vector<OptionSpec>;

struct ParsedArgs {
  std::vector<std::string> positionals;
  std::map<std::string, std::vector<std::string>> options;  // flags map to {""}

  bool has(const std::string& name) const { return options.count(name) != 0; }
  // The value of a Single option, or `fallback` when it was not given.
  std::string value(const std::string& name, const std::string& fallback = "") const;
  std::vector<std::string> values(const std::string& name) const;
};

// InvalidArgument naming the option for an unknown option, a missing value, a value given to
// a flag, or a Single option given twice.
Result<ParsedArgs> parse_args(const ArgSpec& spec, const std::vector<std::string>& argv);

// Strict number parsing for option values: the whole text must be a number in range.
Result<int64_t> parse_int_option(const std::string& option, const std::string& text,
                                 int64_t min, int64_t max);
Result<uint64_t> parse_uint_option(const std::string& option, const std::string& text);
Result<double> parse_double_option(const std::string& option, const std::string& text);

}  // namespace devplan::cli
