#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <harness/campaign/fuzz_campaign.h>

#include <cstdio>
#include <cstdlib>
#include <set>

#include <harness/engine/engine.h>

#include "commands_test_support.h"

namespace devplan::harness {
namespace {

using ::testing::HasSubstr;

using testing::run;

// fuzz_command reads the sharding variables a test runner sets for this very binary; these
// tests run the whole campaign, so they clear them.
void clear_sharding_environment() {
  for (const char* name :
       {"GTEST_TOTAL_SHARDS", "GTEST_SHARD_INDEX", "TEST_TOTAL_SHARDS", "TEST_SHARD_INDEX"}) {
    ::unsetenv(name);
  }
}

TEST(FuzzCommandTest, CleanCampaignJsonSummary) {
  clear_sharding_environment();
  testing::CommandResult r = run(&fuzz_command, {"--cases", "60", "--seed", "5", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.rfind(testing::json_header() +
                            R"("seed":5,"shard":"0/1","cases":60,"failures":0,"seconds":)",
                        0),
            0u)
      << r.out;
  EXPECT_THAT(r.out, HasSubstr(R"("cases_per_second":)"));
}

TEST(FuzzCommandTest, ShardsSplitTheCampaignDeterministically) {
  // Case seeds depend only on (seed, case index): shards never overlap and cover everything.
  std::set<uint64_t> all, shard0, shard1;
  for (uint64_t k = 0; k < 40; ++k) all.insert(case_seed(9, k));
  for (uint64_t k = 0; k < 40; k += 2) shard0.insert(case_seed(9, k));
  for (uint64_t k = 1; k < 40; k += 2) shard1.insert(case_seed(9, k));
  EXPECT_EQ(all.size(), 40u);
  EXPECT_EQ(shard0.size() + shard1.size(), 40u);
  EXPECT_EQ(case_seed(9, 7), case_seed(9, 7));
  EXPECT_NE(case_seed(9, 7), case_seed(10, 7));
  testing::CommandResult r = run(&fuzz_command, {"--cases", "10", "--shard", "1/3", "--json"});
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, HasSubstr(R"("shard":"1/3","cases":10,)")) << r.out;
}

TEST(FuzzCommandTest, InjectedLeakIsFoundMinimisedWrittenAndReplayable) {
  char dir_template[] = "/tmp/devplan_fuzz_XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  testing::CommandResult r = run(
      &fuzz_command, {"--cases", "50", "--seed", "3", "--inject-bug", "skip-free", "--out", dir});
  ASSERT_EQ(r.exit_code, 3) << r.out;
  // The first case with a device buffer fails; its minimised program is one device buffer.
  EXPECT_THAT(r.out, HasSubstr("(cleanup): leaked: #1 cuda:")) << r.out;
  EXPECT_THAT(r.out, HasSubstr(" owner forward/buffer 0")) << r.out;
  const size_t replay_at = r.out.find("replay: devplan fuzz --seed 3 --case ");
  ASSERT_NE(replay_at, std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" --inject-bug skip-free\n", replay_at), std::string::npos);
  const size_t written_at = r.out.find("written to " + dir + "/devplan-fuzz-seed3-case");
  ASSERT_NE(written_at, std::string::npos) << r.out;
  const std::string path =
      r.out.substr(written_at + 11, r.out.find('\n', written_at) - written_at - 11);

  // The replay command reproduces the same failure...
  const std::string case_text =
      r.out.substr(replay_at + 37, r.out.find(' ', replay_at + 37) - replay_at - 37);
  testing::CommandResult again = run(&fuzz_command, {"--seed", "3", "--case", case_text,
                                                     "--inject-bug", "skip-free", "--out", dir});
  EXPECT_EQ(again.exit_code, 3);
  EXPECT_EQ(again.out.substr(again.out.find("FAILURE")), r.out.substr(r.out.find("FAILURE")));
  // ...and the written program shows the leak in `devplan simulate`.
  testing::CommandResult sim = run(&simulate_command, {path, "--inject-bug", "skip-free"});
  EXPECT_EQ(sim.exit_code, 3) << sim.out;
  EXPECT_EQ(run(&simulate_command, {path}).exit_code, 0);
  std::remove(path.c_str());
}

TEST(FuzzCommandTest, InjectedDoubleFreeIsFound) {
  testing::CommandResult r = run(
      &fuzz_command, {"--cases", "50", "--inject-bug", "double-free", "--out", "/tmp", "--json"});
  ASSERT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.out, HasSubstr(R"("failures":1)"));
  EXPECT_THAT(r.out, HasSubstr(R"("check":"cleanup","message":"misuse: double free of #1 cuda:)"))
      << r.out;
}

// --differential probes each case in both engines; a compute bug planted in the device backends
// is found, minimised, written, and `devplan probe` finds it in the written program.
TEST(FuzzCommandTest, AnInjectedComputeBugIsFoundByProbe) {
  if (!executorch_available()) GTEST_SKIP() << executorch_unavailable_reason();
  const std::string dir = testing::temp_dir();
  testing::CommandResult r = run(&fuzz_command, {"--differential", "--cases", "500", "--seed", "7",
                                                 "--inject-bug", "unwritten-output", "--out", dir});
  ASSERT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("FAILURE in case 416 (probe): devplan: UNWRITTEN method prefill: "
                               "output 0 (int32[], cuda:2): 4 of 4 bytes never written (delegate "
                               "0, DeviceAddBackend)\n"));
  EXPECT_THAT(r.out, HasSubstr("  instructions: delegate(t2, t2) -> t1\n"));
  EXPECT_THAT(r.out, HasSubstr("replay: devplan fuzz --seed 7 --case 416 --inject-bug "
                               "unwritten-output --differential\n"));
  const std::string written = dir + "/devplan-fuzz-seed7-case416.pte";
  testing::CommandResult probe = run(&probe_command, {written, "--inject-bug", "unwritten-output"});
  EXPECT_EQ(probe.exit_code, 3) << probe.out;
  EXPECT_THAT(probe.out, HasSubstr("UNWRITTEN method prefill: output 0 (int32[], cuda:2): 4 of 4 "
                                   "bytes never written (delegate 0, DeviceAddBackend)\n"));
  EXPECT_EQ(run(&probe_command, {written}).exit_code, 0);
  // Without --differential there is no probe to plant it for.
  r = run(&fuzz_command, {"--cases", "5", "--inject-bug", "unwritten-output"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "devplan fuzz: --inject-bug unwritten-output plants a compute bug for probe, which "
            "runs with --differential\nRun 'devplan fuzz --help' for the options.\n");
}

TEST(FuzzCommandTest, UsageErrors) {
  EXPECT_EQ(run(&fuzz_command, {"--cases", "0"}).exit_code, 2);
  EXPECT_EQ(run(&fuzz_command, {"--shard", "2/2"}).exit_code, 2);
  EXPECT_EQ(run(&fuzz_command, {"--shard", "1"}).exit_code, 2);
  EXPECT_EQ(run(&fuzz_command, {"--devices", "cuda:0,CUDA:1"}).exit_code, 2);
  EXPECT_EQ(run(&fuzz_command, {"--seconds", "-1"}).exit_code, 2);
  EXPECT_EQ(run(&fuzz_command, {"file.pte"}).exit_code, 2);
}

TEST(FuzzCommandTest, DevicesRestrictTheMapping) {
  CampaignOptions o;
  o.max_cases = 30;
  o.scenario.devices = {Device::cuda(5)};
  o.checks.unload_bug = UnloadBug::SkipFree;
  CampaignResult r = run_campaign(o, {});
  ASSERT_TRUE(r.failure.has_value());
  EXPECT_THAT(r.failure->finding.message, HasSubstr("cuda:5")) << r.failure->finding.message;
}

}  // namespace
}  // namespace devplan::harness
