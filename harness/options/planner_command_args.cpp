#include <harness/options/planner_command_args.h>

#include <harness/options/byte_size.h>
#include <harness/options/command_line.h>
#include <harness/output/json_reports.h>
#include <harness/values/exit_codes.h>

#include <cstdio>
#include <cstdlib>

namespace devplan::harness {

std::optional<int> parse_planner_command(const Args& args, const char* command,
                                         const char* input_name, const char* description,
                                         PlannerCommandArgs* parsed, std::ostream& out,
                                         std::ostream& err, bool allow_intervals) {
  std::unique_ptr<CLI::App> app = cli::make_command_app(command, description);
  CLI::Option* input = app->add_option(input_name, parsed->input, "the input");
  CLI::Option* output =
      app->add_option("-o,--output", parsed->output,
                      allow_intervals ? "the program to write (with --intervals: the "
                                        "CSV with offsets; default: standard output)"
                                      : "the program to write");
  output->type_name(allow_intervals ? "OUT.pte|OUT.csv" : "OUT.pte");
  app->add_option_function<std::string>(
         "--algorithm",
         [parsed](const std::string& name) { parsed->algorithm = *parse_planner_algorithm(name); },
         "the offset planner (default best: the smallest of all)")
      ->type_name("naive|greedy|greedy_breadth|search|exact|best")
      ->check(cli::checked_by(&parse_planner_algorithm));
  add_budget_steps_option(
      *app, &parsed->budget_steps,
      allow_intervals ? "the exact search's budget per buffer, in search nodes (deterministic; "
                        "default 1000000 for exact, 20000 inside best; with --intervals: "
                        "no limit of nodes, only --time-limit)"
                      : "the exact search's budget per buffer, in search nodes (deterministic; "
                        "default 1000000 for exact, 20000 inside best)");
  app->add_flag("--json", parsed->json, "print one JSON document instead of text");
  if (allow_intervals) {
    CLI::Option* intervals =
        app->add_option("--intervals", parsed->intervals,
                        "plan an instance in the field's CSV format (id,lower,upper,size"
                        "[,alignment]; lifetimes [lower, upper)) instead of a graph")
            ->type_name("IN.csv");
    app->add_option_function<std::string>(
           "--capacity",
           [parsed](const std::string& text) { parsed->capacity = *cli::parse_byte_size(text); },
           "with --intervals: whether the instance fits within SIZE bytes (exit 0 with a plan, "
           "1 when it does not)")
        ->type_name("SIZE")
        ->check(cli::checked_by(&cli::parse_byte_size))
        ->needs(intervals);
    app->add_option_function<std::string>(
           "--time-limit",
           [parsed](const std::string& text) {
             parsed->time_limit = std::strtod(text.c_str(), nullptr);
           },
           "with --intervals: stop the exact search after SECONDS (default 60 with --capacity, "
           "10 without; none with --budget-steps)")
        ->type_name("SECONDS")
        ->check(CLI::Validator(
            [](std::string& text) -> std::string {
              char* end = nullptr;
              const double seconds = std::strtod(text.c_str(), &end);
              const bool number = !text.empty() && end == text.c_str() + text.size() &&
                                  text.find_first_not_of("0123456789.") == std::string::npos;
              return number && seconds > 0 && seconds <= 1e6
                         ? ""
                         : "'" + text + "' is not a number of seconds (above 0, at most 10^6)";
            },
            "SECONDS"))
        ->needs(intervals);
    input->excludes(intervals);
    std::optional<int> done = cli::parse_command_line(*app, args, out, err);
    if (done) return done;
    if (parsed->intervals.empty() && (parsed->input.empty() || parsed->output.empty())) {
      err << "devplan " << command << ": " << input_name
          << " and -o are required (or --intervals IN.csv)\n";
      return cli::kExitUsage;
    }
    return std::nullopt;
  }
  input->required();
  output->required();
  return cli::parse_command_line(*app, args, out, err);
}

void add_budget_steps_option(CLI::App& app, int64_t* steps, const char* description) {
  app.add_option("--budget-steps", *steps, description)
      ->type_name("N")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            constexpr uint64_t kMaxSteps = 1000000000000000000;  // 10^18
            const bool digits = !text.empty() && text.size() <= 19 &&
                                text.find_first_not_of("0123456789") == std::string::npos;
            return digits && std::strtoull(text.c_str(), nullptr, 10) <= kMaxSteps
                       ? ""
                       : "'" + text + "' is not a number of steps (0 to 10^18)";
          },
          "N"));
}

int fail_command(const Error& error, const char* command, bool json, std::ostream& out,
                 std::ostream& err) {
  if (json) {
    out << error_json(error) << "\n";
  } else {
    err << "devplan " << command << ": " << error.to_string() << "\n";
  }
  return cli::kExitError;
}

}  // namespace devplan::harness
