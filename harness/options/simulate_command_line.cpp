#include <harness/options/simulate_command_line.h>

#include <harness/options/command_line.h>
#include <harness/options/command_options.h>
#include <harness/options/memory_ceiling_options.h>
#include <harness/options/placement_options.h>

namespace devplan::harness {

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

}  // namespace devplan::harness
