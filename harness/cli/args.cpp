#include <harness/cli/args.h>

#include <cerrno>
#include <cstdlib>

namespace devplan::cli {
namespace {

const OptionSpec* find_long(const ArgSpec& spec, const std::string& name) {
  for (const OptionSpec& o : spec) {
    if (o.name == name) return &o;
  }
  return nullptr;
}

const OptionSpec* find_short(const ArgSpec& spec, char c) {
  for (const OptionSpec& o : spec) {
    if (o.short_name != 0 && o.short_name == c) return &o;
  }
  return nullptr;
}

Error usage(const std::string& what) { return Error(ErrorCode::InvalidArgument, what); }

}  // namespace

std::string ParsedArgs::value(const std::string& name, const std::string& fallback) const {
  auto it = options.find(name);
  return it == options.end() || it->second.empty() ? fallback : it->second.back();
}

std::vector<std::string> ParsedArgs::values(const std::string& name) const {
  auto it = options.find(name);
  return it == options.end() ? std::vector<std::string>{} : it->second;
}

Result<ParsedArgs> parse_args(const ArgSpec& spec, const std::vector<std::string>& argv) {
  ParsedArgs out;
  bool options_done = false;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (options_done || arg.size() < 2 || arg[0] != '-') {
      out.positionals.push_back(arg);
      continue;
    }
    if (arg == "--") {
      options_done = true;
      continue;
    }
    const OptionSpec* option = nullptr;
    std::string inline_value;
    bool has_inline_value = false;
    std::string shown = arg;
    if (arg.rfind("--", 0) == 0) {
      std::string name = arg.substr(2);
      const size_t eq = name.find('=');
      if (eq != std::string::npos) {
        inline_value = name.substr(eq + 1);
        has_inline_value = true;
        name = name.substr(0, eq);
        shown = "--" + name;
      }
      option = find_long(spec, name);
    } else if (arg.size() == 2) {
      option = find_short(spec, arg[1]);
    }
    if (option == nullptr) return usage("unknown option " + shown);
    std::vector<std::string>& values = out.options[option->name];
    if (option->kind == OptionKind::Flag) {
      if (has_inline_value) return usage("option " + shown + " takes no value");
      values.assign(1, "");
      continue;
    }
    if (option->kind == OptionKind::Single && !values.empty()) {
      return usage("option --" + option->name + " given more than once");
    }
    if (has_inline_value) {
      values.push_back(inline_value);
    } else if (i + 1 < argv.size()) {
      values.push_back(argv[++i]);
    } else {
      return usage("option --" + option->name + " needs a value");
    }
  }
  return out;
}

Result<int64_t> parse_int_option(const std::string& option, const std::string& text, int64_t min,
                                 int64_t max) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || v < min || v > max ||
      text.find_first_of(" \t") != std::string::npos) {
    return usage("--" + option + " expects an integer from " + std::to_string(min) + " to " +
                 std::to_string(max) + ", got '" + text + "'");
  }
  return static_cast<int64_t>(v);
}

Result<uint64_t> parse_uint_option(const std::string& option, const std::string& text) {
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || text[0] < '0' || text[0] > '9' || *end != '\0' || errno == ERANGE) {
    return usage("--" + option + " expects a non-negative integer, got '" + text + "'");
  }
  return static_cast<uint64_t>(v);
}

Result<double> parse_double_option(const std::string& option, const std::string& text) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno == ERANGE || text.find_first_of(" \t") != std::string::npos) {
    return usage("--" + option + " expects a number, got '" + text + "'");
  }
  return v;
}

}  // namespace devplan::cli
