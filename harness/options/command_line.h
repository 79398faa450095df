// The command line of one `devplan` subcommand, parsed by CLI11. Each command declares its
// options on a CLI::App bound to its own variables, then calls parse_command_line:
//
//   CLI::App app = ...;                        // see make_command_app
//   std::string file; bool json = false;
//   app.add_option("FILE", file, "the program (.pte)")->required();
//   app.add_flag("--json", json, "print one JSON document");
//   if (std::optional<int> done = parse_command_line(app, args, out, err)) return *done;
//
// Options may come before or after positionals, `--name value` and `--name=value` both work,
// `--` ends options. `--help` prints the command's help to `out` (exit 0); a usage error prints
// "devplan NAME: <what>" and a pointer to --help on `err` (exit 2).
#pragma once

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include <harness/values/exit_codes.h>
#include <runtime_ext/core/result.h>

namespace devplan::harness {
// A command's words, after its name.
using Args = std::vector<std::string>;
}  // namespace devplan::harness

namespace devplan::cli {

// An app for `devplan <command>`: its usage line names "devplan <command>", a repeated
// single-value option takes one value per occurrence, and a scalar option given twice is an
// error.
std::unique_ptr<CLI::App> make_command_app(const std::string& command,
                                           const std::string& description);

// Parses `args` (the words after the command name). Nullopt when the command should go on;
// otherwise the exit code to return (kExitOk after --help, kExitUsage after an error).
std::optional<int> parse_command_line(CLI::App& app, const std::vector<std::string>& args,
                                      std::ostream& out, std::ostream& err);

// --name VALUE, repeatable: one value per occurrence, kept in the order given.
CLI::Option* add_repeated_option(CLI::App& app, const std::string& name,
                                 std::vector<std::string>& values, const std::string& description);

// Prints a usage error found after parsing (a value that does not fit the program or another
// option) the way parse_command_line prints CLI11's, and returns kExitUsage.
int usage_error(const CLI::App& app, const std::string& what, std::ostream& err);

// Validators with messages that name the expected form. CLI11 alone reads unsigned options
// with strtoull (so "-1" would wrap and "010" be octal) and lets NaN through PositiveNumber.
// A whole decimal number without sign, prefix or spaces in [min, 2^64 - 1] (leading zeros are
// dropped: "010" is ten); the message names that range. It rewrites the text, so add it with
// transform(), not check().
CLI::Validator decimal_validator(uint64_t min = 0);
// A finite number above zero.
const CLI::Validator& positive_finite_validator();
// A finite number, 0 or above (not NaN, not infinite).
const CLI::Validator& non_negative_finite_validator();

// Accepts what `parse` accepts (any function taking the text and returning a Result); the
// parser's message otherwise. Use it to check a value at parse time and convert it after; name
// the value's form in help with the option's type_name.
template <typename Parse>
CLI::Validator checked_by(Parse parse) {
  return CLI::Validator(
      [parse](std::string& text) -> std::string {
        auto result = parse(text);
        return result.ok() ? std::string() : result.error().message();
      },
      "");
}

}  // namespace devplan::cli
