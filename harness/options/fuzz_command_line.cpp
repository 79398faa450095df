#include <harness/options/fuzz_command_line.h>

#include <harness/campaign/fuzz_sharding.h>
#include <harness/options/command_line.h>
#include <harness/options/command_options.h>

namespace devplan::harness {
namespace {

Result<std::vector<Device>> parse_device_list(const std::string& text) {
  std::vector<Device> devices;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    DEVPLAN_ASSIGN_OR_RETURN(Device d, parse_device(text.substr(start, comma - start)));
    devices.push_back(d);
    if (comma == std::string::npos) return devices;
    start = comma + 1;
  }
}

}  // namespace

ScenarioOptions command_line_scenario() {
  ScenarioOptions scenario;
  // Buffers up to 64 KiB: large enough for every size class (zero, tiny, unaligned, many
  // pages), small enough that filling simulated device memory does not dominate a case.
  scenario.max_buffer_bytes = uint64_t{64} * 1024;
  return scenario;
}

namespace {

// An unload bug, or a compute bug (none excluded) for probe.
Result<std::string> parse_fuzz_bug(const std::string& text) {
  const Result<ComputeBug> compute = parse_compute_bug(text);
  if (compute.ok() && *compute != ComputeBug::None) return text;
  const Result<UnloadBug> unload = parse_injected_bug(text);
  if (unload.ok()) return text;
  return Error(ErrorCode::InvalidArgument,
               "expects skip-free, double-free, wrong-index-free, unwritten-output, "
               "merged-outputs or read-before-write, got '" +
                   text + "'");
}

}  // namespace

std::unique_ptr<CLI::App> fuzz_app(FuzzCommandLine& c) {
  auto app = cli::make_command_app(
      "fuzz",
      "Randomized campaign: generated programs, device mappings, faults, lifecycles. Without "
      "--cases or --seconds, runs 1000 cases. --runtime executorch holds ExecuTorch's runtime to "
      "every case too (it implies --differential: the invariants run on runtime_ext, ExecuTorch "
      "must match it). --device cuda runs every check on the GPU's memory; a planned device no "
      "GPU has and no --device-map names runs on cuda:(index % GPUs present). Shards also come "
      "from TEST_TOTAL_SHARDS/TEST_SHARD_INDEX or "
      "GTEST_TOTAL_SHARDS/GTEST_SHARD_INDEX.");
  CampaignOptions& o = c.options;
  app->add_option("--seed", o.seed, "the campaign's seed (default 1)")
      ->type_name("S")
      ->transform(cli::decimal_validator());
  app->add_option("--cases", c.cases, "run this many cases")
      ->type_name("N")
      ->transform(cli::decimal_validator(1));
  app->add_option("--seconds", c.seconds, "run for this long")
      ->type_name("T")
      ->check(cli::positive_finite_validator());
  app->add_option("--shard", c.shard, "run the cases k with k % N == I (overrides the environment)")
      ->type_name("I/N")
      ->check(cli::checked_by(&parse_shard));
  app->add_option("--devices", c.devices, "the devices programs are planned for")
      ->type_name("cpu:0,cuda:0,...")
      ->check(cli::checked_by(&parse_device_list));
  app->add_option("--case", o.only_case, "run only case K (replay)")
      ->type_name("K")
      ->transform(cli::decimal_validator());
  app->add_option("--inject-bug", c.inject_bug,
                  "make unload misbehave on purpose: skip-free, double-free or wrong-index-free; "
                  "or, with --differential, the device backends' compute, which probe must "
                  "find: unwritten-output, merged-outputs or read-before-write")
      ->type_name("BUG")
      ->check(cli::checked_by(&parse_fuzz_bug));
  app->add_flag("--differential", c.differential,
                "also load and run every case in ExecuTorch and compare, and probe it in both "
                "engines (devplan probe: no finding where the outputs are determined)");
  add_runtime_option(*app, c.runtime);
  add_device_options(*app, c.device);
  app->add_option("--out", c.out_dir, "where a failing case's program is written (default .)")
      ->type_name("DIR");
  app->add_option("--junit", c.junit, "write JUnit XML")->type_name("FILE");
  add_json_flag(*app, c.json);
  return app;
}

Result<CampaignOptions> campaign_options(const FuzzCommandLine& c) {
  CampaignOptions o = c.options;
  o.scenario = command_line_scenario();
  if (c.cases) o.max_cases = *c.cases;
  if (c.seconds) o.max_seconds = *c.seconds;
  if (!c.cases && !c.seconds) o.max_cases = 1000;
  DEVPLAN_ASSIGN_OR_RETURN(Shard shard,
                           c.shard.empty() ? shard_from_environment() : parse_shard(c.shard));
  o.shard_index = shard.index;
  o.shard_count = shard.count;
  if (!c.devices.empty()) o.scenario.devices = *parse_device_list(c.devices);
  o.checks.differential = c.differential || c.runtime == RuntimeKind::Executorch;
  if (!c.inject_bug.empty()) {
    const Result<ComputeBug> compute = parse_compute_bug(c.inject_bug);
    if (compute.ok()) {
      if (!o.checks.differential) {
        return Error(ErrorCode::InvalidArgument,
                     "--inject-bug " + c.inject_bug +
                         " plants a compute bug for probe, which runs with --differential");
      }
      o.checks.compute_bug = *compute;
    } else {
      o.checks.unload_bug = *parse_injected_bug(c.inject_bug);
    }
  }
  return o;
}

std::string replay_options(const FuzzCommandLine& c) {
  std::string extra;
  if (!c.devices.empty()) extra += " --devices " + c.devices;
  if (!c.inject_bug.empty()) extra += " --inject-bug " + c.inject_bug;
  extra += c.device.arguments();
  return extra;
}

}  // namespace devplan::harness
