// devplan budget record FILE... -o budget.json [--update] [--tolerance PCT] [--json]
// devplan budget check budget.json FILE... [--only-given] [--tolerance PCT]
//                      [--allocation-tolerance PCT] [--junit OUT.xml] [--json]
#include <harness/commands/budget_command.h>
#include <harness/options/command_options.h>
#include <harness/options/planner_command_args.h>
#include <harness/output/budget_output.h>
#include <harness/output/junit.h>
#include <harness/output/output_file.h>
#include <harness/services/budget_file.h>
#include <harness/services/budget_match.h>
#include <harness/services/budget_measure.h>

#include <chrono>

namespace devplan::harness {
namespace {

constexpr const char* kBudgetUsage =
    "devplan budget: record programs' memory figures, or check programs against them\n"
    "usage:\n"
    "  devplan budget record FILE... -o budget.json [--update] [--tolerance PCT] [--json]\n"
    "  devplan budget check budget.json FILE... [--only-given] [--tolerance PCT]\n"
    "                       [--allocation-tolerance PCT] [--junit OUT.xml] [--json]\n"
    "`devplan budget record --help` and `devplan budget check --help` show the options.\n";

// --- record ------------------------------------------------------------------------------------

int budget_record_command(const Args& args, std::ostream& out, std::ostream& err) {
  std::vector<std::string> files;
  std::vector<std::string> data;  // --data: data files (.ptd) of the programs
  DeviceSetup device;             // --device, --device-map
  std::string output;
  std::optional<double> tolerance;
  bool update = false;
  bool json = false;
  std::unique_ptr<CLI::App> app = cli::make_command_app(
      "budget record",
      "Write each program's memory figures to a budget file: per method, its planned buffers, "
      "planned and peak bytes per device, the device allocations a load makes under each "
      "engine this build has, and the plan's ratio to its lower bound. Re-recording keeps the "
      "file's tolerances.");
  app->add_option("FILE", files, "the programs (.pte)")->type_name("FILE.pte")->required();
  app->footer(
      "exit codes: 0 recorded, 1 a program that does not load or a file that cannot be "
      "written, 2 usage error");
  app->add_option("-o,--output", output, "the budget file to write")
      ->type_name("budget.json")
      ->required();
  app->add_flag("--update", update,
                "add or replace the given programs and keep the budget's others (one budget "
                "shared by several recordings)");
  add_percent_option(*app, "--tolerance", tolerance,
                     "the byte growth `budget check` allows every program, in percent "
                     "(default: the file's, else 0)");
  add_data_option(*app, data);
  add_device_options(*app, device);
  add_json_flag(*app, json);
  if (std::optional<int> done = cli::parse_command_line(*app, args, out, err)) return *done;
  if (std::optional<std::string> repeated = repeated_budget_key(files)) {
    return cli::usage_error(*app, *repeated, err);
  }

  // An existing file is replaced only when it is a budget (its tolerances carry over).
  Result<Budget> budget = budget_to_record_over(output);
  if (!budget.ok()) return fail_command(budget.error(), "budget record", json, out, err);
  if (Error ready = check_devices(device); !ready.ok()) {
    return fail_command(ready, "budget record", json, out, err);
  }
  Result<std::map<std::string, BudgetProgram>> measured = measure_programs(files, data, device);
  if (!measured.ok()) return fail_command(measured.error(), "budget record", json, out, err);
  const BudgetRecording recording = record_programs(
      *budget, std::move(*measured), tolerance, update ? RecordMode::Update : RecordMode::Replace);
  if (!write_output("budget record", output, write_budget(*budget), err)) return cli::kExitError;

  if (json) {
    out << budget_record_json(*budget, output, recording, device) << "\n";
  } else {
    print_budget_record_text(out, *budget, output, recording, device);
  }
  return cli::kExitOk;
}

// --- check -------------------------------------------------------------------------------------

int budget_check_command(const Args& args, std::ostream& out, std::ostream& err) {
  std::string budget_file, junit;
  std::vector<std::string> files;
  std::vector<std::string> data;  // --data: data files (.ptd) of the programs
  DeviceSetup device;             // --device, --device-map
  std::optional<double> tolerance, allocation_tolerance;
  bool only_given = false;
  bool json = false;
  std::unique_ptr<CLI::App> app = cli::make_command_app(
      "budget check",
      "Check programs against a budget file (devplan budget record): exit 3 when a figure grew "
      "beyond its tolerance, naming it and the growth. Byte tolerance: the program's "
      "tolerance_pct in the budget, else --tolerance, else the budget's tolerance_pct, else 0. "
      "Shrinking is reported, never a failure.");
  app->add_option("BUDGET", budget_file, "the budget file")->type_name("budget.json")->required();
  app->add_option("FILE", files, "the programs (.pte), each one the budget has")
      ->type_name("FILE.pte")
      ->required();
  app->footer(
      "exit codes: 0 within the budget, 1 a bad budget file, a program missing on either "
      "side or one that does not load, 2 usage error, 3 a figure grew beyond the budget");
  app->add_flag("--only-given", only_given,
                "check the programs given and let the budget have others (one budget shared by "
                "several checks)");
  add_percent_option(*app, "--tolerance", tolerance,
                     "byte growth allowed, in percent, for programs without their own");
  add_percent_option(*app, "--allocation-tolerance", allocation_tolerance,
                     "allocation-count growth allowed, in percent (default 0)");
  add_data_option(*app, data);
  add_device_options(*app, device);
  app->add_option("--junit", junit, "write JUnit XML (one case per program and method)")
      ->type_name("OUT.xml");
  add_json_flag(*app, json);
  if (std::optional<int> done = cli::parse_command_line(*app, args, out, err)) return *done;
  if (std::optional<std::string> repeated = repeated_budget_key(files)) {
    return cli::usage_error(*app, *repeated, err);
  }

  const auto start = std::chrono::steady_clock::now();
  const auto finish = [&](int code, const std::vector<JunitCase>& cases) {
    if (junit.empty()) return code;
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const bool written =
        write_output("budget check", junit, junit_xml("devplan budget check", cases, seconds), err);
    return written ? code : exit_after_write_failure(code);
  };
  const auto failed = [&](const Error& error) {
    return finish(fail_command(error, "budget check", json, out, err),
                  {{budget_file, "budget check", error.to_string(), 0}});
  };

  Result<Budget> budget = read_budget(budget_file);
  if (!budget.ok()) return failed(budget.error());
  const BudgetScope scope = only_given ? BudgetScope::GivenOnly : BudgetScope::Whole;
  if (Error unmatched = unmatched_programs(*budget, budget_file, files, data, device, scope);
      !unmatched.ok()) {
    return failed(unmatched);
  }
  if (Error ready = check_devices(device); !ready.ok()) return failed(ready);
  Result<std::map<std::string, BudgetProgram>> measured = measure_programs(files, data, device);
  if (!measured.ok()) return failed(measured.error());

  const std::vector<ProgramCheck> checks =
      check_programs(*budget, *measured, files, {tolerance, allocation_tolerance});
  const std::string accept = accept_command(files, budget_file, data, device, scope);
  if (json) {
    out << budget_check_json(budget_file, checks, accept, device) << "\n";
  } else {
    print_budget_check_text(out, budget_file, checks, accept, device);
  }
  const int code = budget_failures(checks) == 0 ? cli::kExitOk : cli::kExitFinding;
  return finish(code, budget_check_junit_cases(checks));
}

}  // namespace

int budget_command(const Args& args, std::ostream& out, std::ostream& err) {
  if (args.empty()) {
    err << kBudgetUsage;
    return cli::kExitUsage;
  }
  const Args rest(args.begin() + 1, args.end());
  if (args[0] == "record") return budget_record_command(rest, out, err);
  if (args[0] == "check") return budget_check_command(rest, out, err);
  if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    out << kBudgetUsage;
    return cli::kExitOk;
  }
  err << "devplan budget: unknown subcommand '" << args[0] << "' (record or check)\n"
      << kBudgetUsage;
  return cli::kExitUsage;
}

}  // namespace devplan::harness
