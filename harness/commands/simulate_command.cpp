// devplan simulate FILE [--method NAME]... [--place INDEX=DEVICE]... [--fail-alloc N]
//                       [--capacity DEVICE=SIZE]... [--inject-bug BUG] [--backing unbacked|host]
//                       [--max-device-allocation SIZE] [--max-host-buffer SIZE]
//                       [--trace OUT.json] [--json]
#include <harness/commands/commands.h>
#include <harness/options/byte_size.h>
#include <harness/options/command_options.h>
#include <harness/options/memory_ceiling_options.h>
#include <harness/output/chrome_trace.h>
#include <harness/output/json_reports.h>
#include <harness/output/junit.h>
#include <harness/output/output_file.h>
#include <harness/output/summary_line.h>
#include <harness/output/timeline_svg.h>
#include <harness/services/device_statistics.h>
#include <harness/services/simulation.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include <harness/engine/child_process.h>

namespace devplan::harness {
namespace {

// What `devplan simulate` was asked to do.
struct SimulateCommandLine {
  std::string file;
  SimulationOptions options;
  bool json = false;
  std::string timeline_svg;
  std::string junit;
  std::string trace;
};

// "INDEX=DEVICE" for --place.
Result<std::pair<uint32_t, Device>> parse_placement(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    return Error(ErrorCode::InvalidArgument, "expects INDEX=DEVICE, got '" + text + "'");
  }
  const std::string index = text.substr(0, eq);
  char* end = nullptr;
  errno = 0;
  const unsigned long long n = std::strtoull(index.c_str(), &end, 10);
  if (index[0] < '0' || index[0] > '9' || *end != '\0' || errno != 0 || n > INT32_MAX) {
    return Error(
        ErrorCode::InvalidArgument,
        "buffer index '" + index + "' is not a number in [0, " + std::to_string(INT32_MAX) + "]");
  }
  DEVPLAN_ASSIGN_OR_RETURN(Device device, parse_device(text.substr(eq + 1)));
  return std::make_pair(static_cast<uint32_t>(n), device);
}

// "DEVICE=SIZE" for --capacity.
Result<std::pair<Device, uint64_t>> parse_capacity(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    return Error(ErrorCode::InvalidArgument, "expects DEVICE=SIZE, got '" + text + "'");
  }
  DEVPLAN_ASSIGN_OR_RETURN(Device device, parse_device(text.substr(0, eq)));
  DEVPLAN_ASSIGN_OR_RETURN(uint64_t bytes, cli::parse_byte_size(text.substr(eq + 1)));
  return std::make_pair(device, bytes);
}

std::unique_ptr<CLI::App> simulate_app(SimulateCommandLine& c) {
  auto app = cli::make_command_app(
      "simulate",
      "Load and unload methods on simulated devices (or a GPU: --device cuda); report the "
      "allocation ledger, per-device statistics, leaks and misuse.");
  SimulationOptions& o = c.options;
  add_program_argument(*app, c.file);
  cli::add_repeated_option(*app, "--method", o.methods, "load only this method (repeatable)");
  app->add_option_function<std::vector<std::string>>(
         "--place",
         [&o](const std::vector<std::string>& items) {
           for (const std::string& item : items) o.placements.push_back(*parse_placement(item));
         },
         "move planned buffer INDEX (and its tensors) to DEVICE first, e.g. 1=cuda:0 "
         "(repeatable)")
      ->allow_extra_args(false)
      ->type_name("INDEX=DEVICE")
      ->check(cli::checked_by(&parse_placement));
  app->add_option("--fail-alloc", o.fail_alloc, "fail the Nth device allocation (1-based)")
      ->type_name("N")
      ->transform(cli::decimal_validator(1));
  app->add_option_function<std::vector<std::string>>(
         "--capacity",
         [&o](const std::vector<std::string>& items) {
           for (const std::string& item : items) o.capacities.push_back(*parse_capacity(item));
         },
         "limit DEVICE to SIZE bytes, e.g. cuda:0=1GiB (repeatable; units B, KiB, MiB, GiB, "
         "KB, MB, GB)")
      ->allow_extra_args(false)
      ->type_name("DEVICE=SIZE")
      ->check(cli::checked_by(&parse_capacity));
  app->add_option_function<std::string>(
         "--inject-bug",
         [&o](const std::string& text) { o.unload_bug = *parse_injected_bug(text); },
         "make unload misbehave on purpose: skip-free, double-free or wrong-index-free")
      ->type_name("BUG")
      ->check(cli::checked_by(&parse_injected_bug));
  app->add_option("--timeline-svg", c.timeline_svg, "write the allocation timeline as SVG")
      ->type_name("OUT.svg");
  app->add_option("--trace", c.trace,
                  "write the allocation lifetimes as Chrome trace-event JSON (Perfetto, "
                  "chrome://tracing)")
      ->type_name("OUT.json");
  app->add_option("--junit", c.junit, "write JUnit XML (one case per method load)")
      ->type_name("OUT.xml");
  app->add_option_function<std::string>(
         "--backing", [&o](const std::string& text) { o.backing = *parse_device_backing(text); },
         "simulated device memory: unbacked (default; address ranges, no host memory behind "
         "them, copies back just their pages) or host (every byte host memory); refused with "
         "--device cuda, whose memory is the GPU's")
      ->type_name("unbacked|host")
      ->check(cli::checked_by(&parse_device_backing));
  add_memory_ceiling_options(*app, o.ceilings);
  add_device_options(*app, o.device);
  add_runtime_option(*app, o.runtime);
  add_data_option(*app, o.data_paths);
  add_json_flag(*app, c.json);
  return app;
}

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

void print_statistics(std::ostream& out, const SimulationResult& r) {
  const std::vector<DeviceStatistics> stats = device_statistics(r.events);
  out << "statistics:" << (stats.empty() ? " none" : "") << "\n";
  for (const DeviceStatistics& d : stats) {
    out << "  " << d.device.to_string() << ": bytes current " << cli::format_bytes(d.bytes.current)
        << ", peak " << cli::format_bytes(d.bytes.peak) << ", total "
        << cli::format_bytes(d.bytes.total) << "; allocations current " << d.allocations.current
        << ", peak " << d.allocations.peak << ", total " << d.allocations.total << "\n";
  }
}

void print_text(std::ostream& out, const std::string& file, const SimulationResult& r) {
  out << "program: " << file << "\n";
  out << "runtime: " << runtime_name(r.runtime) << "\n";
  out << "device memory: " << r.device_memory << "\n";
  if (!r.device_map.empty())
    out << "device map: " << r.device_map << " (the ledger names the planned devices)\n";
  for (const MethodOutcome& m : r.methods) {
    out << "method " << m.name << ": " << (m.status.ok() ? "loaded" : m.status.to_string());
    for (size_t i = 0; i < m.stand_ins.size(); ++i) {
      out << (i == 0 ? " with placeholders for " : ", ") << m.stand_ins[i];
    }
    out << (m.stand_ins.empty() ? "\n" : " (it cannot run here)\n");
    for (const BufferOutcome& b : m.buffers) {
      out << "  buffer " << b.index << ": " << cli::format_bytes(b.size) << " on "
          << b.device.to_string() << (b.allocated ? ", allocated" : ", not allocated") << "\n";
    }
  }
  out << "device allocations: " << r.allocations.size() << "\n";
  for (const AllocationRecord& a : r.allocations) {
    out << "  " << format_allocation(a) << (a.live ? "  LIVE" : "  freed") << "\n";
  }
  out << "failed allocations: " << r.failed_allocations.size() << "\n";
  for (const FailedAllocation& f : r.failed_allocations) {
    out << "  #" << f.seq << " " << f.device.to_string() << " " << cli::format_bytes(f.size)
        << " owner " << (f.owner.empty() ? "-" : f.owner) << ": " << f.reason << "\n";
  }
  print_statistics(out, r);
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

int simulate_parsed(const SimulateCommandLine& c, std::ostream& out, std::ostream& err);

}  // namespace

int simulate_command(const Args& args, std::ostream& out, std::ostream& err) {
  SimulateCommandLine c;
  std::unique_ptr<CLI::App> app = simulate_app(c);
  if (std::optional<int> done = cli::parse_command_line(*app, args, out, err)) return *done;
  if (app->count("--backing") > 0 && c.options.device.kind == DeviceKind::Cuda) {
    return cli::usage_error(*app, "--backing applies to the simulated devices, not --device cuda",
                            err);
  }
  if (c.options.runtime != RuntimeKind::Executorch) return simulate_parsed(c, out, err);
  // ExecuTorch aborts on some invalid programs: run it in a child and report an abort.
  ChildOutcome child = run_in_child([&](std::string* child_out) {
    std::ostringstream o;
    const int code = simulate_parsed(c, o, std::cerr);
    std::cerr.flush();
    *child_out = o.str();
    return code;
  });
  out << child.out;
  if (!child.signaled() && child.started) {
    err << child.err;
    return child.exit_code;
  }
  const std::string what =
      "ExecuTorch aborted while simulating " + c.file + ": " + child.describe();
  if (c.json) {
    out << simulate_abort_json(what) << "\n";
  } else {
    err << child.err;
    err << "devplan simulate: FINDING: " << what << "\n";
  }
  return child.started ? cli::kExitFinding : cli::kExitError;
}

namespace {

// The text or JSON report of a simulation (or of the error that stopped it); its exit code.
int print_simulation(const SimulateCommandLine& c, const Result<SimulationResult>& result,
                     bool option_error, std::ostream& out, std::ostream& err) {
  if (!result.ok()) {
    const Error error = result.error().with_context(c.file);
    if (option_error) {  // an option that does not fit the program
      err << "devplan simulate: " << error.message() << "\n";
      return cli::kExitUsage;
    }
    if (c.json) {
      out << simulate_error_json(error, c.options.runtime) << "\n";
    } else {
      err << "devplan simulate: " << error.to_string() << "\n";
    }
    return cli::kExitError;
  }
  const int code = simulate_exit_code(*result);
  if (c.json) {
    out << simulate_json(*result, code) << "\n";
    return code;
  }
  print_text(out, c.file, *result);
  out << "result: "
      << (code == cli::kExitOk      ? "ok: every method loaded, every allocation freed"
          : code == cli::kExitError ? "load error reported cleanly, nothing leaked"
                                    : "FOUND leaks or misuse")
      << "\n";
  out << simulation_summary(*result) << "\n";
  return code;
}

int simulate_parsed(const SimulateCommandLine& c, std::ostream& out, std::ostream& err) {
  const auto start = std::chrono::steady_clock::now();
  Result<ProgramImage> bytes = ProgramImage::map(c.file);
  bool program_error = false;
  Result<SimulationResult> result = bytes.ok() ? simulate_program(*bytes, c.options, &program_error)
                                               : Result<SimulationResult>(bytes.error());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const bool option_error =
      !result.ok() && bytes.ok() && !program_error &&
      (result.code() == ErrorCode::InvalidArgument || result.code() == ErrorCode::NotFound);
  const int code = print_simulation(c, result, option_error, out, err);
  if (code == cli::kExitUsage) return code;
  // The files come after the report, so a file that cannot be written loses nothing else.
  bool written = true;
  if (!c.junit.empty()) {
    const std::vector<JunitCase> cases =
        result.ok()
            ? junit_cases(c.file, *result)
            : std::vector<JunitCase>{{c.file, "load program", result.error().to_string(), 0}};
    written &=
        write_output("simulate", c.junit, junit_xml("devplan simulate", cases, seconds), err);
  }
  if (result.ok() && !c.timeline_svg.empty()) {
    written &= write_output("simulate", c.timeline_svg,
                            timeline_svg(c.file, result->events, result->leaks), err);
  }
  if (result.ok() && !c.trace.empty()) {
    written &= write_output("simulate", c.trace,
                            allocation_trace(c.file, result->events, result->leaks), err);
  }
  return written ? code : exit_after_write_failure(code);
}

}  // namespace

}  // namespace devplan::harness
