// The replay line `devplan fuzz` (and `devplan report`) prints for a case, read back by
// `devplan fuzz`, rebuilds exactly that case: the same program bytes from the same case seed,
// run through the same checks, whatever other options shaped the campaign. Every combination
// of the options that shape a case is tried, with options that must not matter (shards, case
// counts, time, output places) mixed in.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include <harness/options/command_line.h>
#include <harness/options/fuzz_command_line.h>
#include <harness/scenario/seeded_generator.h>
#include <harness/scenario/writer.h>

namespace devplan::harness {
namespace {

struct Parsed {
  FuzzCommandLine line;
  CampaignOptions options;
};

Parsed parse_fuzz(const std::vector<std::string>& args) {
  Parsed p;
  std::unique_ptr<CLI::App> app = fuzz_app(p.line);
  std::ostringstream out, err;
  EXPECT_EQ(cli::parse_command_line(*app, args, out, err), std::nullopt) << err.str();
  Result<CampaignOptions> o = campaign_options(p.line);
  EXPECT_TRUE(o.ok()) << o.error();
  if (o.ok()) p.options = *o;
  return p;
}

// The words of a printed replay line after "devplan fuzz".
std::vector<std::string> replay_args(const std::string& line) {
  std::istringstream words(line);
  std::vector<std::string> args;
  for (std::string w; words >> w;) args.push_back(w);
  EXPECT_GE(args.size(), 2u);
  EXPECT_EQ(args[0], "devplan");
  EXPECT_EQ(args[1], "fuzz");
  return std::vector<std::string>(args.begin() + 2, args.end());
}

std::vector<uint8_t> program_of(const CampaignOptions& o, uint64_t k) {
  return build_program(
      resolve_program_draft(generate_program_draft(case_seed(o.seed, k), o.scenario)));
}

// Case k of the campaign `original` and case k of what its replay line parses to are the same.
void expect_replay_rebuilds(const CampaignOptions& original, const std::string& extra, uint64_t k,
                            const std::string& context) {
  const std::string line = replay_command(original, k, extra);
  const Parsed replay = parse_fuzz(replay_args(line));
  const CampaignOptions& r = replay.options;
  SCOPED_TRACE(context + " -> " + line);
  ASSERT_EQ(r.only_case, std::optional<uint64_t>(k));
  EXPECT_EQ(r.seed, original.seed);
  EXPECT_EQ(case_seed(r.seed, k), case_seed(original.seed, k));
  EXPECT_EQ(program_of(r, k), program_of(original, k));
  EXPECT_EQ(r.scenario.devices, original.scenario.devices);
  EXPECT_EQ(r.scenario.max_buffer_bytes, original.scenario.max_buffer_bytes);
  EXPECT_EQ(r.checks.unload_bug, original.checks.unload_bug);
  EXPECT_EQ(r.checks.differential, original.checks.differential);
  EXPECT_EQ(r.max_shrink_attempts, original.max_shrink_attempts);
  // The replay line is itself replayed to the same line: nothing is lost or added.
  EXPECT_EQ(replay_command(r, k, replay_options(replay.line)), line);
}

TEST(FuzzReplayRoundTrip, EveryCombinationOfTheOptionsThatShapeACase) {
  const std::vector<std::vector<std::string>> seeds = {
      {}, {"--seed", "0"}, {"--seed", "7"}, {"--seed", "18446744073709551615"}};
  const std::vector<std::vector<std::string>> devices = {
      {}, {"--devices", "cuda:0"}, {"--devices", "cpu:0,cuda:1"}, {"--devices", "cuda:3,cuda:0"}};
  const std::vector<std::vector<std::string>> bugs = {{},
                                                      {"--inject-bug", "skip-free"},
                                                      {"--inject-bug", "double-free"},
                                                      {"--inject-bug", "wrong-index-free"}};
  const std::vector<std::vector<std::string>> differential = {
      {}, {"--differential"}, {"--runtime", "executorch"}};
  // Options that must not change a case: they are left out of the replay.
  const std::vector<std::vector<std::string>> irrelevant = {
      {}, {"--shard", "2/5", "--cases", "9"}, {"--seconds", "3.5", "--out", "dir", "--json"}};
  size_t combinations = 0;
  for (const auto& s : seeds) {
    for (const auto& d : devices) {
      for (const auto& b : bugs) {
        for (const auto& x : differential) {
          for (const auto& i : irrelevant) {
            std::vector<std::string> args;
            for (const auto* part : {&s, &d, &b, &x, &i}) {
              args.insert(args.end(), part->begin(), part->end());
            }
            const Parsed original = parse_fuzz(args);
            std::string context;
            for (const std::string& a : args) context += a + " ";
            for (uint64_t k : {uint64_t{0}, uint64_t{3}, uint64_t{1000003}}) {
              expect_replay_rebuilds(original.options, replay_options(original.line), k, context);
            }
            ++combinations;
          }
        }
      }
    }
  }
  EXPECT_EQ(combinations, 4u * 4 * 4 * 3 * 3);
}

// `devplan report` prints `devplan fuzz --seed S --case K` for its campaign's failure; its
// campaign generates what `devplan fuzz` without options does.
TEST(FuzzReplayRoundTrip, ReportCampaignIsWhatPlainFuzzReplays) {
  CampaignOptions report;
  report.seed = 42;
  report.scenario = command_line_scenario();
  for (uint64_t k : {uint64_t{0}, uint64_t{17}}) {
    expect_replay_rebuilds(report, "", k, "report");
  }
  // And the scenario both use is the one documented: 64 KiB buffers, default devices.
  EXPECT_EQ(command_line_scenario().max_buffer_bytes, uint64_t{64} * 1024);
  EXPECT_EQ(command_line_scenario().devices, ScenarioOptions().devices);
}

}  // namespace
}  // namespace devplan::harness
