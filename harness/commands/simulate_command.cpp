// devplan simulate FILE [--method NAME]... [--place INDEX=DEVICE]... [--fail-alloc N]
//                       [--capacity DEVICE=BYTES]... [--inject-bug BUG] [--json]
#include <harness/cli/args.h>
#include <harness/commands/command.h>
#include <harness/commands/simulation.h>
#include <harness/report/json_reports.h>
#include <harness/report/junit.h>
#include <harness/report/timeline_svg.h>

#include <chrono>
#include <iostream>
#include <sstream>

#include <harness/engine/child_process.h>

namespace devplan::harness {
namespace {

constexpr const char* kUsage =
    "usage: devplan simulate FILE [--method NAME]... [--place INDEX=DEVICE]... [--fail-alloc N]\n"
    "                        [--capacity DEVICE=BYTES]... [--inject-bug "
    "skip-free|double-free|wrong-index-free]\n"
    "                        [--timeline-svg OUT.svg] [--junit OUT.xml] [--device simulated|cuda]\n"
    "                        [--runtime devplan|executorch] [--json]";

const cli::ArgSpec kSpec = {
    {"method", cli::OptionKind::Repeated},   {"place", cli::OptionKind::Repeated},
    {"fail-alloc", cli::OptionKind::Single}, {"capacity", cli::OptionKind::Repeated},
    {"inject-bug", cli::OptionKind::Single}, {"json", cli::OptionKind::Flag},
    {"timeline-svg", cli::OptionKind::Single}, {"junit", cli::OptionKind::Single},
    {"device", cli::OptionKind::Single},     {"runtime", cli::OptionKind::Single},
};

// One JUnit case per method load, plus one for leaks and one for misuse.
std::vector<JunitCase> junit_cases(const std::string& file, const SimulationResult& r) {
  std::vector<JunitCase> cases;
  for (const MethodOutcome& m : r.methods) {
    cases.push_back({file, "load " + m.name, m.status.ok() ? "" : m.status.to_string(), 0});
  }
  std::string leaks, misuse;
  for (const std::string& line : r.leak_lines) leaks += "leak: " + line + "\n";
  for (const MisuseRecord& m : r.misuse) misuse += "misuse: " + m.message + "\n";
  cases.push_back({file, "no leaks", leaks, 0});
  cases.push_back({file, "no misuse", misuse, 0});
  return cases;
}

// Splits "KEY=VALUE"; InvalidArgument naming the option otherwise.
Result<std::pair<std::string, std::string>> split_assignment(const std::string& option,
                                                             const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    return Error(ErrorCode::InvalidArgument,
                 "--" + option + " expects KEY=VALUE, got '" + text + "'");
  }
  return std::make_pair(text.substr(0, eq), text.substr(eq + 1));
}

Result<SimulationOptions> parse_options(const cli::ParsedArgs& args) {
  SimulationOptions options;
  options.methods = args.values("method");
  for (const std::string& text : args.values("place")) {
    DEVPLAN_ASSIGN_OR_RETURN(auto kv, split_assignment("place", text));
    DEVPLAN_ASSIGN_OR_RETURN(int64_t index, cli::parse_int_option("place", kv.first, 0, INT32_MAX));
    DEVPLAN_ASSIGN_OR_RETURN(Device device, parse_device(kv.second));
    options.placements.emplace_back(static_cast<uint32_t>(index), device);
  }
  if (args.has("fail-alloc")) {
    DEVPLAN_ASSIGN_OR_RETURN(int64_t n, cli::parse_int_option("fail-alloc", args.value("fail-alloc"),
                                                               1, INT64_MAX));
    options.fail_alloc = static_cast<uint64_t>(n);
  }
  for (const std::string& text : args.values("capacity")) {
    DEVPLAN_ASSIGN_OR_RETURN(auto kv, split_assignment("capacity", text));
    DEVPLAN_ASSIGN_OR_RETURN(Device device, parse_device(kv.first));
    DEVPLAN_ASSIGN_OR_RETURN(uint64_t bytes, cli::parse_uint_option("capacity", kv.second));
    options.capacities.emplace_back(device, bytes);
  }
  DEVPLAN_ASSIGN_OR_RETURN(options.device, parse_device_kind(args.value("device", "simulated")));
  DEVPLAN_ASSIGN_OR_RETURN(options.runtime, parse_runtime_kind(args.value("runtime", "devplan")));
  if (args.has("inject-bug")) {
    const std::string bug = args.value("inject-bug");
    if (!parse_unload_bug(bug, &options.unload_bug) || options.unload_bug == UnloadBug::None) {
      return Error(ErrorCode::InvalidArgument,
                   "--inject-bug expects skip-free, double-free or wrong-index-free, got '" +
                       bug + "'");
    }
  }
  return options;
}

void print_text(std::ostream& out, const std::string& file, const SimulationResult& r) {
  out << "program: " << file << "\n";
  out << "runtime: " << runtime_name(r.runtime) << "\n";
  for (const MethodOutcome& m : r.methods) {
    out << "method " << m.name << ": " << (m.status.ok() ? "loaded" : m.status.to_string())
        << "\n";
    for (const BufferOutcome& b : m.buffers) {
      out << "  buffer " << b.index << ": " << b.size << " B on " << b.device.to_string()
          << (b.allocated ? ", allocated" : ", not allocated") << "\n";
    }
  }
  out << "device allocations: " << r.allocations.size() << "\n";
  for (const AllocationRecord& a : r.allocations) {
    out << "  " << format_allocation(a) << (a.live ? "  LIVE" : "  freed") << "\n";
  }
  out << "failed allocations: " << r.failed_allocations.size() << "\n";
  for (const FailedAllocation& f : r.failed_allocations) {
    out << "  #" << f.seq << " " << f.device.to_string() << " " << f.size << " B owner "
        << (f.owner.empty() ? "-" : f.owner) << ": " << f.reason << "\n";
  }
  out << "leaks: " << r.leaks.size() << "\n";
  for (const std::string& line : r.leak_lines) out << "  " << line << "\n";
  out << "misuse: " << r.misuse.size() << "\n";
  for (const MisuseRecord& m : r.misuse) out << "  " << m.message << "\n";
}

}  // namespace

int simulate_exit_code(const SimulationResult& result) {
  if (result.has_findings()) return cli::kExitFinding;
  return result.all_loaded() ? cli::kExitOk : cli::kExitError;
}

namespace {

int simulate_parsed(const cli::ParsedArgs* parsed, const SimulationOptions* options,
                    std::ostream& out, std::ostream& err);

}  // namespace

int simulate_command(const Args& args, std::ostream& out, std::ostream& err) {
  Result<cli::ParsedArgs> parsed = cli::parse_args(kSpec, args);
  Result<SimulationOptions> options =
      parsed.ok() ? parse_options(*parsed) : Result<SimulationOptions>(parsed.error());
  if (!options.ok() || parsed->positionals.size() != 1) {
    err << "devplan simulate: "
        << (options.ok() ? "expected exactly one FILE" : options.error().message()) << "\n"
        << kUsage << "\n";
    return cli::kExitUsage;
  }
  if (options->runtime != RuntimeKind::Executorch) {
    return simulate_parsed(&*parsed, &*options, out, err);
  }
  // ExecuTorch aborts on some invalid programs: run it in a child and report an abort.
  ChildOutcome child = run_in_child([&](std::string* child_out) {
    std::ostringstream o;
    const int code = simulate_parsed(&*parsed, &*options, o, std::cerr);
    std::cerr.flush();
    *child_out = o.str();
    return code;
  });
  out << child.out;
  if (!child.signaled() && child.started) {
    err << child.err;
    return child.exit_code;
  }
  const std::string& file = parsed->positionals[0];
  const std::string what = "ExecuTorch aborted while simulating " + file + ": " + child.describe();
  if (parsed->has("json")) {
    out << simulate_abort_json(what) << "\n";
  } else {
    err << child.err;
    err << "devplan simulate: FINDING: " << what << "\n";
  }
  return child.started ? cli::kExitFinding : cli::kExitError;
}

namespace {

int simulate_parsed(const cli::ParsedArgs* parsed_args, const SimulationOptions* options_in,
                    std::ostream& out, std::ostream& err) {
  const cli::ParsedArgs* parsed = parsed_args;
  const SimulationOptions* options = options_in;
  const std::string& file = parsed->positionals[0];
  const bool json = parsed->has("json");
  const auto start = std::chrono::steady_clock::now();
  Result<std::vector<uint8_t>> bytes = read_file(file);
  bool program_error = false;
  Result<SimulationResult> result = bytes.ok() ? simulate_program(*bytes, *options, &program_error)
                                               : Result<SimulationResult>(bytes.error());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (parsed->has("junit")) {
    std::vector<JunitCase> cases =
        result.ok() ? junit_cases(file, *result)
                    : std::vector<JunitCase>{{file, "load program", result.error().to_string(), 0}};
    Error e = write_file(parsed->value("junit"), junit_xml("devplan simulate", cases, seconds));
    if (!e.ok()) {
      err << "devplan simulate: " << e.to_string() << "\n";
      return cli::kExitError;
    }
  }
  if (result.ok() && parsed->has("timeline-svg")) {
    Error e = write_file(parsed->value("timeline-svg"),
                         timeline_svg(file, result->events, result->leaks));
    if (!e.ok()) {
      err << "devplan simulate: " << e.to_string() << "\n";
      return cli::kExitError;
    }
  }
  if (!result.ok()) {
    const Error error = result.error().with_context(file);
    if (result.code() == ErrorCode::InvalidArgument || result.code() == ErrorCode::NotFound) {
      if (bytes.ok() && !program_error) {  // an option that does not fit the program
        err << "devplan simulate: " << error.message() << "\n";
        return cli::kExitUsage;
      }
    }
    if (json) {
      out << simulate_error_json(error, options->runtime) << "\n";
    } else {
      err << "devplan simulate: " << error.to_string() << "\n";
    }
    return cli::kExitError;
  }
  const int code = simulate_exit_code(*result);
  if (json) {
    out << simulate_json(*result, code) << "\n";
  } else {
    print_text(out, file, *result);
    out << "result: "
        << (code == cli::kExitOk      ? "ok: every method loaded, every allocation freed"
            : code == cli::kExitError ? "load error reported cleanly, nothing leaked"
                                      : "FOUND leaks or misuse")
        << "\n";
  }
  return code;
}

}  // namespace

}  // namespace devplan::harness
