#include <harness/commands/planner_command_args.h>

#include <harness/cli/command_line.h>
#include <harness/cli/exit_codes.h>
#include <harness/report/json_reports.h>

namespace devplan::harness {

std::optional<int> parse_planner_command(const Args& args, const char* command,
                                         const char* input_name, const char* description,
                                         PlannerCommandArgs* parsed, std::ostream& out,
                                         std::ostream& err) {
  std::unique_ptr<CLI::App> app = cli::make_command_app(command, description);
  app->add_option(input_name, parsed->input, "the input")->required();
  app->add_option("-o,--output", parsed->output, "the program to write")
      ->type_name("OUT.pte")
      ->required();
  app->add_option_function<std::string>(
         "--algorithm",
         [parsed](const std::string& name) { parsed->algorithm = *parse_planner_algorithm(name); },
         "the offset planner (default best: the smallest of all)")
      ->type_name("naive|greedy|greedy_breadth|search|best")
      ->check(cli::checked_by(&parse_planner_algorithm));
  app->add_flag("--json", parsed->json, "print one JSON document instead of text");
  return cli::parse_command_line(*app, args, out, err);
}

double size_over_lower_bound(uint64_t size, uint64_t lower_bound) {
  if (lower_bound == 0) return size == 0 ? 1.0 : 0.0;
  return static_cast<double>(size) / static_cast<double>(lower_bound);
}

int fail_planner_command(const Error& error, const char* command, bool json, std::ostream& out,
                         std::ostream& err) {
  if (json) {
    out << error_json(error) << "\n";
  } else {
    err << "devplan " << command << ": " << error.to_string() << "\n";
  }
  return cli::kExitError;
}

}  // namespace devplan::harness
