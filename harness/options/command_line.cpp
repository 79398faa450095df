#include <harness/options/command_line.h>

#include <cmath>
#include <cstdlib>

namespace devplan::cli {

std::unique_ptr<CLI::App> make_command_app(const std::string& command,
                                           const std::string& description) {
  auto app = std::make_unique<CLI::App>(description, "devplan " + command);
  // `--json=1` names a value for a flag: an error, as before CLI11.
  app->option_defaults()->disable_flag_override();
  app->footer(
      "exit codes: 0 ok, 1 program or load error, 2 usage error, 3 leak/misuse/overlap "
      "found");
  return app;
}

namespace {

// CLI11 takes a word that starts with '-' after a long option for an option, so `--input -inf`
// would lose its value. The word after an option that takes a value is always that value: join
// them (`--input=-inf`) before CLI11 sees them. (A short option already takes the next word,
// whatever it looks like: `-o -x.pte`, `-o --json`; command_line_test.cpp checks both.) Words
// after `--` stay as they are.
std::vector<std::string> join_option_values(const CLI::App& app,
                                            const std::vector<std::string>& args) {
  std::vector<std::string> joined;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (word == "--") {
      joined.insert(joined.end(), args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
      break;
    }
    const bool long_name =
        word.size() > 2 && word.compare(0, 2, "--") == 0 && word.find('=') == std::string::npos;
    const CLI::Option* option = long_name ? app.get_option_no_throw(word) : nullptr;
    if (option != nullptr && option->get_expected_min() > 0 && i + 1 < args.size()) {
      joined.push_back(word + "=" + args[i + 1]);
      ++i;
      continue;
    }
    joined.push_back(word);
  }
  return joined;
}

}  // namespace

std::optional<int> parse_command_line(CLI::App& app, const std::vector<std::string>& args,
                                      std::ostream& out, std::ostream& err) {
  const std::vector<std::string> words = join_option_values(app, args);
  // CLI11 takes the words last-first.
  std::vector<std::string> reversed(words.rbegin(), words.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return kExitOk;
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All);
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    return usage_error(app, e.what(), err);
  }
  return std::nullopt;
}

int usage_error(const CLI::App& app, const std::string& what, std::ostream& err) {
  err << app.get_name() << ": " << what << "\n"
      << "Run '" << app.get_name() << " --help' for the options.\n";
  return kExitUsage;
}

CLI::Option* add_repeated_option(CLI::App& app, const std::string& name,
                                 std::vector<std::string>& values, const std::string& description) {
  return app.add_option(name, values, description)->allow_extra_args(false);
}

CLI::Validator decimal_validator(uint64_t min) {
  return CLI::Validator(
      [min](std::string& text) -> std::string {
        const std::string why = "expects a whole decimal number in [" + std::to_string(min) +
                                ", 18446744073709551615], got '" + text + "'";
        if (text.empty()) return why;
        for (char ch : text) {
          if (ch < '0' || ch > '9') return why;
        }
        // CLI11 converts with base 0, where a leading 0 means octal: "010" is ten here.
        const size_t first = text.find_first_not_of('0');
        const std::string digits = first == std::string::npos ? "0" : text.substr(first);
        if (digits.size() > 20 || (digits.size() == 20 && digits > "18446744073709551615")) {
          return why;
        }
        if (std::strtoull(digits.c_str(), nullptr, 10) < min) return why;
        text = digits;
        return std::string();
      },
      "");
}

const CLI::Validator& positive_finite_validator() {
  static const CLI::Validator validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || !std::isfinite(v) || !(v > 0)) {
          return "expects a finite number above 0, got '" + text + "'";
        }
        return std::string();
      },
      "");
  return validator;
}

const CLI::Validator& non_negative_finite_validator() {
  static const CLI::Validator validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || !std::isfinite(v) || v < 0) {
          return "expects a finite number, 0 or above, got '" + text + "'";
        }
        return std::string();
      },
      "");
  return validator;
}

}  // namespace devplan::cli
