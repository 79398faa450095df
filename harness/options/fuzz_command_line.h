// What `devplan fuzz` was asked, read from its command line, and the options a replay of one
// of its cases must carry (replay_command in fuzz_campaign.h writes the line).
//
//   FuzzCommandLine c;
//   std::unique_ptr<CLI::App> app = fuzz_app(c);      // parse the arguments into c
//   Result<CampaignOptions> o = campaign_options(c);
//   std::string replay = replay_command(*o, k, replay_options(c));
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include <harness/campaign/fuzz_campaign.h>
#include <harness/engine/device_environment.h>
#include <harness/engine/runtime_kind.h>

namespace devplan::harness {

struct FuzzCommandLine {
  CampaignOptions options;
  std::optional<uint64_t> cases;
  std::optional<double> seconds;
  std::string shard;    // "I/N" as given
  std::string devices;  // "cpu:0,cuda:0" as given
  std::string inject_bug;
  bool differential = false;
  RuntimeKind runtime = RuntimeKind::Devplan;
  DeviceSetup device;  // --device, --device-map
  std::string out_dir = ".";
  std::string junit;
  bool json = false;
};

// The programs every command-line campaign generates (`devplan fuzz` and `devplan report`'s),
// so that a replay by `devplan fuzz --seed S --case K` rebuilds the same case.
ScenarioOptions command_line_scenario();

// The `fuzz` command's parser, filling `c`.
std::unique_ptr<CLI::App> fuzz_app(FuzzCommandLine& c);

// What the parsed strings stand for. Usage errors (a bad sharding environment) name what is
// wrong.
Result<CampaignOptions> campaign_options(const FuzzCommandLine& c);

// The options beyond seed, case and --differential that a replay needs (" --devices ...",
// " --device cuda", " --device-map cuda:1=cuda:0").
std::string replay_options(const FuzzCommandLine& c);

}  // namespace devplan::harness
