#include <harness/cli/command_line.h>

#include <harness/cli/byte_size.h>

namespace devplan::cli {

std::unique_ptr<CLI::App> make_command_app(const std::string& command,
                                           const std::string& description) {
  auto app = std::make_unique<CLI::App>(description, "devplan " + command);
  // `--json=1` names a value for a flag: an error, as before CLI11.
  app->option_defaults()->disable_flag_override();
  app->footer("exit codes: 0 ok, 1 program or load error, 2 usage error, 3 leak/misuse/overlap "
              "found");
  return app;
}

std::optional<int> parse_command_line(CLI::App& app, const std::vector<std::string>& args,
                                      std::ostream& out, std::ostream& err) {
  // CLI11 takes the words last-first.
  std::vector<std::string> reversed(args.rbegin(), args.rend());
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

const CLI::Validator& byte_size_validator() {
  static const CLI::Validator validator(
      [](std::string& text) -> std::string {
        Result<uint64_t> bytes = parse_byte_size(text);
        return bytes.ok() ? std::string() : bytes.error().message();
      },
      "SIZE", "byte size");
  return validator;
}

const CLI::Validator& assignment_validator() {
  static const CLI::Validator validator(
      [](std::string& text) -> std::string {
        const size_t eq = text.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
          return "expects KEY=VALUE, got '" + text + "'";
        }
        return std::string();
      },
      "KEY=VALUE", "assignment");
  return validator;
}

std::pair<std::string, std::string> split_assignment(const std::string& text) {
  const size_t eq = text.find('=');
  return {text.substr(0, eq), text.substr(eq + 1)};
}

}  // namespace devplan::cli
