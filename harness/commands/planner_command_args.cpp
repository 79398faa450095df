#include <harness/commands/planner_command_args.h>

#include <harness/cli/args.h>
#include <harness/report/json_writer.h>

namespace devplan::harness {

std::optional<PlannerCommandArgs> parse_planner_command(const Args& args, const char* command,
                                                        const char* input_name, const char* usage,
                                                        std::ostream& err) {
  const cli::ArgSpec spec = {{"output", cli::OptionKind::Single, 'o'},
                             {"algorithm", cli::OptionKind::Single},
                             {"json", cli::OptionKind::Flag}};
  Result<cli::ParsedArgs> parsed = cli::parse_args(spec, args);
  Result<PlannerAlgorithm> algorithm =
      parsed.ok() ? parse_planner_algorithm(parsed->value("algorithm", "best"))
                  : Result<PlannerAlgorithm>(parsed.error());
  if (!algorithm.ok() || parsed->positionals.size() != 1 || !parsed->has("output")) {
    err << "devplan " << command << ": "
        << (!algorithm.ok() ? algorithm.error().message()
            : parsed->positionals.size() != 1 ? std::string("expected exactly one ") + input_name
                                              : std::string("-o OUT.pte is required"))
        << "\n" << usage << "\n";
    return std::nullopt;
  }
  PlannerCommandArgs out;
  out.input = parsed->positionals[0];
  out.output = parsed->value("output");
  out.algorithm = *algorithm;
  out.json = parsed->has("json");
  return out;
}

double size_over_lower_bound(uint64_t size, uint64_t lower_bound) {
  if (lower_bound == 0) return size == 0 ? 1.0 : 0.0;
  return static_cast<double>(size) / static_cast<double>(lower_bound);
}

int fail_planner_command(const Error& error, const char* command, bool json, std::ostream& out,
                         std::ostream& err) {
  if (json) {
    JsonWriter w;
    w.begin_object().key("error").begin_object();
    w.key("code").value(error_code_name(error.code())).key("message").value(error.message());
    w.end_object().end_object();
    out << w.str() << "\n";
  } else {
    err << "devplan " << command << ": " << error.to_string() << "\n";
  }
  return cli::kExitError;
}

}  // namespace devplan::harness
