// devplan report [--out DIR] [--fuzz-cases N] [--seed S] [--runtime devplan|executorch]
//                [--max-device-allocation SIZE] [--max-host-buffer SIZE] [--json]
//                [--junit OUT.xml] FILE...
// The harness's main job: inspect, check, simulate and run every program, draw its pictures,
// run a short fuzz campaign, and print one summary table (or one JSON document). Each program is
// measured by harness/services/report.h and printed by harness/output/report_output.h.
#include <harness/campaign/fuzz_campaign.h>
#include <harness/commands/report_command.h>
#include <harness/engine/data_files.h>
#include <harness/engine/engine.h>
#include <harness/options/command_options.h>
#include <harness/options/fuzz_command_line.h>
#include <harness/options/memory_ceiling_options.h>
#include <harness/output/output_file.h>
#include <harness/output/report_output.h>
#include <harness/services/report.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <system_error>

namespace devplan::harness {
namespace {

// What `devplan report` was asked to do.
struct ReportCommandLine {
  std::vector<std::string> files;
  std::string out_dir = "build/report";
  CampaignOptions fuzz;
  ReportOptions options;  // --runtime, --device, --device-map, --data, the memory ceilings
  bool json = false;
  std::string junit;
};

std::unique_ptr<CLI::App> report_app(ReportCommandLine& c) {
  auto app = cli::make_command_app(
      "report",
      "The main job: inspect, check, simulate and run each program, write DIR/<program>.svg "
      "(memory plan) and DIR/<program>-timeline.svg (device bytes over the allocations), run a "
      "fuzz campaign and print a summary table. With --runtime executorch, ExecuTorch's runtime "
      "simulates and runs each program (in a child process, so an abort is a finding) and the "
      "fuzz campaign is differential.");
  c.fuzz.max_cases = 2000;
  c.fuzz.scenario = command_line_scenario();  // what `devplan fuzz` replays
  app->add_option("FILE", c.files, "the programs (.pte)")->required();
  app->add_option("--out", c.out_dir, "where the pictures go (created; default build/report)")
      ->type_name("DIR");
  app->add_option("--fuzz-cases", c.fuzz.max_cases, "fuzz cases to run (default 2000; 0 skips)")
      ->type_name("N")
      ->transform(cli::decimal_validator());
  app->add_option("--seed", c.fuzz.seed, "the fuzz campaign's seed")
      ->type_name("S")
      ->transform(cli::decimal_validator());
  add_runtime_option(*app, c.options.runtime);
  add_device_options(*app, c.options.device);
  add_data_option(*app, c.options.data);
  add_memory_ceiling_options(*app, c.options.ceilings);
  add_json_flag(*app, c.json);
  app->add_option("--junit", c.junit, "also write JUnit XML: one case per program, one for fuzz")
      ->type_name("OUT.xml");
  return app;
}

}  // namespace

int report_command(const Args& args, std::ostream& out, std::ostream& err) {
  ReportCommandLine c;
  std::unique_ptr<CLI::App> app = report_app(c);
  if (std::optional<int> done = cli::parse_command_line(*app, args, out, err)) return *done;
  if (c.options.runtime == RuntimeKind::Executorch && !executorch_available()) {
    err << "devplan report: --runtime executorch: " << executorch_unavailable_reason() << "\n";
    return cli::kExitError;
  }
  c.fuzz.checks.differential = c.options.runtime == RuntimeKind::Executorch;
  if (Error ready = check_devices(c.options.device); !ready.ok()) {
    err << "devplan report: " << ready.message() << "\n";
    return cli::kExitError;
  }
  std::error_code ec;
  std::filesystem::create_directories(c.out_dir, ec);
  if (ec || !std::filesystem::is_directory(c.out_dir)) {
    err << "devplan report: cannot create '" << c.out_dir
        << "': " << (ec ? ec.message() : "it exists and is not a directory") << "\n";
    return cli::kExitError;
  }
  const auto start = std::chrono::steady_clock::now();
  ReportOutcome o;
  Result<std::shared_ptr<const DataFiles>> data = map_data_files(c.options.data);
  if (!data.ok()) {
    err << "devplan report: --data: " << data.error().to_string() << "\n";
    return cli::kExitError;
  }
  o.data_files = *data;
  const ReportPictures pictures = report_pictures(c.out_dir);
  for (const std::string& file : c.files) {
    o.rows.push_back(report_program_isolated(file, c.options, pictures, err));
  }
  // The campaign runs here, after every program's child: CUDA is first used in this process now.
  std::unique_ptr<RealDeviceMemory> fuzz_memory;
  if (c.fuzz.max_cases > 0 && c.options.device.kind == DeviceKind::Cuda) {
    Result<std::unique_ptr<RealDeviceMemory>> opened =
        RealDeviceMemory::open(c.options.device, /*wrap_absent=*/true);
    if (opened.ok()) {
      fuzz_memory = std::move(opened).value();
      c.fuzz.checks.device_memory = fuzz_memory->allocator();
    }
  }
  if (c.fuzz.max_cases > 0) o.campaign = run_campaign(c.fuzz, {});
  o.totals = report_totals(o.rows);
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  o.runtime = c.options.runtime;
  o.device = c.options.device;
  o.out_dir = c.out_dir;
  o.fuzz = c.fuzz;
  if (c.json) {
    out << report_json(o) << "\n";
  } else {
    print_report_text(out, o);
  }
  // The JUnit file comes after the report, so a file that cannot be written loses nothing else.
  if (!c.junit.empty() && !write_output("report", c.junit, report_junit(o), err)) {
    return exit_after_write_failure(o.exit_code());
  }
  return o.exit_code();
}

}  // namespace devplan::harness
