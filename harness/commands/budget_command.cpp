// devplan budget record FILE... -o budget.json [--tolerance PCT] [--json]
// devplan budget check budget.json FILE... [--tolerance PCT] [--allocation-tolerance PCT]
//                      [--junit OUT.xml] [--json]
#include <harness/commands/commands.h>
#include <harness/options/command_options.h>
#include <harness/options/planner_command_args.h>
#include <harness/output/json_document.h>
#include <harness/output/junit.h>
#include <harness/output/output_file.h>
#include <harness/services/budget_check.h>
#include <harness/services/budget_file.h>
#include <runtime_ext/core/text_join.h>

#include <chrono>
#include <filesystem>
#include <map>

namespace devplan::harness {
namespace {

constexpr const char* kBudgetUsage =
    "devplan budget: record programs' memory figures, or check programs against them\n"
    "usage:\n"
    "  devplan budget record FILE... -o budget.json [--tolerance PCT] [--json]\n"
    "  devplan budget check budget.json FILE... [--tolerance PCT] [--allocation-tolerance PCT]\n"
    "                       [--junit OUT.xml] [--json]\n"
    "`devplan budget record --help` and `devplan budget check --help` show the options.\n";

// Programs are keyed by file name, so two files of one name cannot share a budget.
std::optional<std::string> repeated_name(const std::vector<std::string>& files) {
  std::map<std::string, std::string> seen;
  for (const std::string& f : files) {
    auto [it, inserted] = seen.emplace(budget_key(f), f);
    if (inserted) continue;
    if (it->second == f) return "'" + f + "' is given twice";
    return "'" + it->second + "' and '" + f + "' have the same file name '" + it->first +
           "' (a budget keys programs by file name)";
  }
  return std::nullopt;
}

std::string accept_command(const std::vector<std::string>& files, const std::string& budget,
                           const std::vector<std::string>& data, const DeviceSetup& device) {
  std::string command = "devplan budget record";
  for (const std::string& f : files) command += " " + f;
  for (const std::string& d : data) command += " --data " + d;
  command += device.arguments();
  return command + " -o " + budget;
}

Result<std::map<std::string, BudgetProgram>> measure_programs(const std::vector<std::string>& files,
                                                              const std::vector<std::string>& data,
                                                              const DeviceSetup& device) {
  std::map<std::string, BudgetProgram> programs;
  for (const std::string& file : files) {
    Result<BudgetProgram> p = measure_program(file, data, device);
    if (!p.ok()) return p.error().with_context(file);
    programs[budget_key(file)] = std::move(*p);
  }
  return programs;
}

// --- record ------------------------------------------------------------------------------------

int budget_record_command(const Args& args, std::ostream& out, std::ostream& err) {
  std::vector<std::string> files;
  std::vector<std::string> data;  // --data: data files (.ptd) of the programs
  DeviceSetup device;             // --device, --device-map
  std::string output;
  std::optional<double> tolerance;
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
  add_percent_option(*app, "--tolerance", tolerance,
                     "the byte growth `budget check` allows every program, in percent "
                     "(default: the file's, else 0)");
  add_data_option(*app, data);
  add_device_options(*app, device);
  add_json_flag(*app, json);
  if (std::optional<int> done = cli::parse_command_line(*app, args, out, err)) return *done;
  if (std::optional<std::string> repeated = repeated_name(files)) {
    return cli::usage_error(*app, *repeated, err);
  }

  // An existing file is replaced only when it is a budget (its tolerances carry over).
  Budget budget;
  std::error_code ec;
  if (std::filesystem::exists(output, ec)) {
    Result<Budget> existing = read_budget(output);
    if (!existing.ok()) {
      return fail_command(
          Error(ErrorCode::InvalidArgument, "not overwriting '" + output +
                                                "', which is not a devplan budget (" +
                                                existing.error().message() + ")"),
          "budget record", json, out, err);
    }
    budget = std::move(*existing);
  }
  if (Error ready = check_devices(device); !ready.ok()) {
    return fail_command(ready, "budget record", json, out, err);
  }
  Result<std::map<std::string, BudgetProgram>> measured = measure_programs(files, data, device);
  if (!measured.ok()) return fail_command(measured.error(), "budget record", json, out, err);
  std::vector<std::string> dropped;
  for (const auto& [name, p] : budget.programs) {
    if (measured->count(name) == 0) dropped.push_back(name);
  }
  for (auto& [name, p] : *measured) {
    auto it = budget.programs.find(name);
    if (it != budget.programs.end()) p.tolerance_pct = it->second.tolerance_pct;
  }
  budget.programs = std::move(*measured);
  if (tolerance) budget.tolerance_pct = tolerance;
  if (!write_output("budget record", output, write_budget(budget), err)) return cli::kExitError;

  size_t methods = 0;
  for (const auto& [name, p] : budget.programs) methods += p.methods.size();
  if (json) {
    Json doc = json_document();
    doc["budget"] = output;
    if (device.kind == DeviceKind::Cuda) doc["devices"] = device.describe();
    Json programs = Json::array();
    for (const auto& [name, p] : budget.programs) {
      Json names = Json::array();
      for (const auto& [method, m] : p.methods) names.push_back(method);
      programs.push_back({{"name", name}, {"methods", std::move(names)}});
    }
    doc["programs"] = std::move(programs);
    doc["dropped"] = dropped;
    out << write_json(doc) << "\n";
    return cli::kExitOk;
  }
  out << "recorded " << budget.programs.size()
      << (budget.programs.size() == 1 ? " program" : " programs") << " (" << methods
      << (methods == 1 ? " method" : " methods") << ") in " << output << "\n";
  if (device.kind == DeviceKind::Cuda) out << "devices: " << device.describe() << "\n";
  for (const auto& [name, p] : budget.programs) {
    out << "  " << name << ":";
    for (const auto& [method, m] : p.methods) out << " " << method;
    out << "\n";
    for (const auto& [method, m] : p.methods) {
      for (const auto& [engine, load] : m.loads) {
        if (load.placeholders.empty()) continue;
        out << "    " << method << ": " << engine << " loaded with placeholders for "
            << join(load.placeholders, ", ") << " (it cannot run here)\n";
      }
    }
  }
  for (const std::string& name : dropped) {
    out << "  dropped " << name << " (it was in the budget; not given now)\n";
  }
  return cli::kExitOk;
}

// --- check -------------------------------------------------------------------------------------

struct ProgramCheck {
  std::string name;  // the budget's key
  std::string file;
  std::vector<std::string> methods;
  std::vector<BudgetFinding> findings;
  size_t failures() const {
    size_t n = 0;
    for (const BudgetFinding& f : findings) n += f.kind == FindingKind::Grew;
    return n;
  }
};

// What is missing on either side: a file the budget lacks, a budget entry without its file.
std::vector<std::string> unmatched(const Budget& budget, const std::string& budget_file,
                                   const std::vector<std::string>& files,
                                   const std::vector<std::string>& data,
                                   const DeviceSetup& device) {
  std::vector<std::string> problems;
  std::map<std::string, bool> given;
  for (const std::string& f : files) {
    given[budget_key(f)] = true;
    if (budget.programs.count(budget_key(f)) == 0) {
      const std::string name = budget_key(f) == f ? f : budget_key(f) + " (" + f + ")";
      problems.push_back(name + " is not in " + budget_file +
                         "; add it with: " + accept_command(files, budget_file, data, device));
    }
  }
  for (const auto& [name, p] : budget.programs) {
    if (given.count(name) == 0) {
      problems.push_back(budget_file + " has " + name +
                         ", but no file of that name was given; pass it, or record the budget "
                         "again without it");
    }
  }
  return problems;
}

const char* line_prefix(FindingKind kind) {
  switch (kind) {
    case FindingKind::Grew:
      return "FAIL ";
    case FindingKind::Note:
      return "note: ";
    default:
      return "";
  }
}

void print_check_text(const std::string& budget_file, const std::vector<ProgramCheck>& checks,
                      const std::string& accept, const DeviceSetup& device, std::ostream& out) {
  out << "budget: " << budget_file << "\n";
  if (device.kind == DeviceKind::Cuda) out << "devices: " << device.describe() << "\n";
  size_t failures = 0, failed_programs = 0;
  for (const ProgramCheck& c : checks) {
    const size_t n = c.failures();
    failures += n;
    failed_programs += n > 0;
    out << "program " << c.name << " (" << c.file << "): "
        << (n == 0 ? "ok"
                   : "FAILED, " + std::to_string(n) + (n == 1 ? " figure" : " figures") +
                         " grew beyond the budget")
        << "\n";
    for (const BudgetFinding& f : c.findings) {
      out << "  " << line_prefix(f.kind) << f.text << "\n";
    }
  }
  if (failures == 0) {
    out << "result: within the budget (" << checks.size()
        << (checks.size() == 1 ? " program" : " programs") << ")\n";
    return;
  }
  out << "result: FAILED: " << failures << (failures == 1 ? " figure" : " figures")
      << " grew beyond the budget in " << failed_programs
      << (failed_programs == 1 ? " program" : " programs") << "\n"
      << "To accept the change: " << accept << "\n";
}

Json budget_check_json(const std::string& budget_file, const std::vector<ProgramCheck>& checks,
                       const std::string& accept, const DeviceSetup& device) {
  Json doc = json_document();
  doc["budget"] = budget_file;
  if (device.kind == DeviceKind::Cuda) doc["devices"] = device.describe();
  Json programs = Json::array();
  size_t failures = 0;
  for (const ProgramCheck& c : checks) {
    Json findings = Json::array();
    for (const BudgetFinding& f : c.findings) findings.push_back(f.json);
    failures += c.failures();
    programs.push_back({{"name", c.name},
                        {"file", c.file},
                        {"result", c.failures() == 0 ? "ok" : "grew"},
                        {"findings", std::move(findings)}});
  }
  doc["programs"] = std::move(programs);
  doc["failures"] = failures;
  doc["result"] = failures == 0 ? "ok" : "grew";
  doc["accept"] = failures == 0 ? Json(nullptr) : Json(accept);
  return doc;
}

// One case per program and method; a method's failures are its growth lines.
std::vector<JunitCase> check_junit_cases(const std::vector<ProgramCheck>& checks) {
  std::vector<JunitCase> cases;
  for (const ProgramCheck& c : checks) {
    for (const std::string& method : c.methods) {
      std::string failure;
      for (const BudgetFinding& f : c.findings) {
        if (f.kind == FindingKind::Grew && f.method == method) failure += f.text + "\n";
      }
      cases.push_back({c.name, method, failure, 0});
    }
  }
  return cases;
}

int budget_check_command(const Args& args, std::ostream& out, std::ostream& err) {
  std::string budget_file, junit;
  std::vector<std::string> files;
  std::vector<std::string> data;  // --data: data files (.ptd) of the programs
  DeviceSetup device;             // --device, --device-map
  std::optional<double> tolerance, allocation_tolerance;
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
  if (std::optional<std::string> repeated = repeated_name(files)) {
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
  const std::vector<std::string> problems = unmatched(*budget, budget_file, files, data, device);
  if (!problems.empty()) {
    std::string message = problems[0];
    for (size_t i = 1; i < problems.size(); ++i) message += "; " + problems[i];
    return failed(Error(ErrorCode::NotFound, message));
  }
  if (Error ready = check_devices(device); !ready.ok()) return failed(ready);
  Result<std::map<std::string, BudgetProgram>> measured = measure_programs(files, data, device);
  if (!measured.ok()) return failed(measured.error());

  std::vector<ProgramCheck> checks;
  for (const std::string& file : files) {
    const std::string name = budget_key(file);
    const BudgetProgram& recorded = budget->programs.at(name);
    const BudgetProgram& now = measured->at(name);
    BudgetTolerances t;
    t.bytes_pct =
        recorded.tolerance_pct.value_or(tolerance.value_or(budget->tolerance_pct.value_or(0.0)));
    t.allocations_pct = allocation_tolerance.value_or(0.0);
    ProgramCheck c;
    c.name = name;
    c.file = file;
    for (const auto& [method, m] : now.methods) c.methods.push_back(method);
    for (const auto& [method, m] : recorded.methods) {
      if (now.methods.count(method) == 0) c.methods.push_back(method);
    }
    c.findings = check_against_budget(name, recorded, now, t);
    checks.push_back(std::move(c));
  }
  size_t failures = 0;
  for (const ProgramCheck& c : checks) failures += c.failures();
  const std::string accept = accept_command(files, budget_file, data, device);
  if (json) {
    out << write_json(budget_check_json(budget_file, checks, accept, device)) << "\n";
  } else {
    print_check_text(budget_file, checks, accept, device, out);
  }
  return finish(failures == 0 ? cli::kExitOk : cli::kExitFinding, check_junit_cases(checks));
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
