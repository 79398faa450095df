// Unit tests of the property-test support: the replay command printed on failure really
// replays the shrunk counterexample, and scenarios print readably in counterexamples.
#include <unistd.h>

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <harness/scenario/scenario_gen.h>
#include "property.h"

namespace devplan::testing {
namespace {

void failing_property() {
  const auto v = *rc::gen::container<std::vector<int>>(rc::gen::inRange(0, 1000));
  if (v.size() >= 3) RC_ASSERT(v[1] < 300);
}

rc::detail::TestResult run(
    const std::unordered_map<std::string, rc::detail::Reproduce>& reproduce) {
  rc::detail::TestMetadata metadata;
  metadata.id = "Support/Failing";
  metadata.description = "Failing";
  rc::detail::TestParams params;
  params.seed = 7;
  params.maxSuccess = 500;
  struct Quiet : rc::detail::TestListener {
    void onTestCaseFinished(const rc::detail::CaseDescription&) override {}
    void onShrinkTried(const rc::detail::CaseDescription&, bool) override {}
    void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) override {}
  } quiet;
  return rc::detail::checkTestable(&failing_property, metadata, params, quiet, reproduce);
}

TEST(PropertySupportTest, ReproduceParamsReplayTheShrunkCase) {
  rc::detail::FailureResult failure;
  ASSERT_TRUE(run({}).match(failure));
  // Shrunk to the smallest failing vector.
  ASSERT_EQ(failure.counterExample.size(), 1u);
  EXPECT_EQ(failure.counterExample[0].second, "[0, 300, 0]");

  const std::string params = reproduce_params("Support/Failing", failure);
  ASSERT_EQ(params.rfind("reproduce=", 0), 0u) << params;
  EXPECT_EQ(params.find(' '), std::string::npos) << params;
  const rc::detail::Configuration config = rc::detail::configFromString(params);
  ASSERT_EQ(config.reproduce.count("Support/Failing"), 1u);
  EXPECT_EQ(config.reproduce.at("Support/Failing"), failure.reproduce);

  rc::detail::FailureResult replayed;
  ASSERT_TRUE(run(config.reproduce).match(replayed));
  EXPECT_EQ(replayed.counterExample, failure.counterExample);
  EXPECT_EQ(replayed.numSuccess, 0);  // the first case replayed is the shrunk one
}

TEST(PropertySupportTest, ReplayCommandNamesThisBinaryAndTheTest) {
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  ASSERT_GT(n, 0);
  EXPECT_EQ(replay_command("reproduce=abc", "Faults", "Kth"),
            "RC_PARAMS=\"reproduce=abc\" " + std::string(self, static_cast<size_t>(n)) +
                " --gtest_filter=Faults.Kth");
}

void report_failing_property() { report_property_result(run({})); }

TEST(PropertySupportTest, FailureMessageEndsWithTheReplayCommand) {
  EXPECT_NONFATAL_FAILURE(report_failing_property(), "Reproduce with:\n  RC_PARAMS=\"reproduce=");
  EXPECT_NONFATAL_FAILURE(
      report_failing_property(),
      " --gtest_filter=PropertySupportTest.FailureMessageEndsWithTheReplayCommand\n");
}

TEST(PropertySupportTest, SuccessReportsNothing) {
  rc::detail::SuccessResult success;
  success.numSuccess = 100;
  ::testing::TestPartResultArray reported;
  {
    ::testing::ScopedFakeTestPartResultReporter intercept(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &reported);
    report_property_result(rc::detail::TestResult(success));
  }
  EXPECT_EQ(reported.size(), 0);  // no failure, no message of any kind
  // The same reporter does see a failure, so the check above can fail.
  {
    ::testing::ScopedFakeTestPartResultReporter intercept(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &reported);
    report_failing_property();
  }
  EXPECT_EQ(reported.size(), 1);
}

TEST(PropertySupportTest, ScenariosPrintAsTheirDescription) {
  ProgramScenario s;
  MethodScenario& m = s.methods.emplace_back();
  m.name = "forward";
  m.buffers = {{48, Device::cuda(2)}, {0, Device::cpu()}};
  EXPECT_EQ(rc::toString(s), "\nmethod forward: buffer 0 48 B cuda:2, buffer 1 0 B cpu:0\n");
  EXPECT_EQ(rc::toString(Corruption{CorruptionKind::OffsetPastEnd, 1, 2, 3}),
            "offset_past_end (method 1, target 2, amount 3)");
}

// The RapidCheck generators only make valid scenarios, and cover every op.
TEST(PropertySupportTest, GeneratedScenariosAreValid) {
  std::set<ScenarioOp> ops;
  const rc::Gen<ProgramScenario> gen = gen_program_scenario();
  for (int i = 0; i < 300; ++i) {
    const ProgramScenario s = gen(rc::Random(static_cast<uint64_t>(i)), i % 101).value();
    const Error err = validate_program_scenario(s);
    ASSERT_TRUE(err.ok()) << err << "\n" << describe_program_scenario(s);
    for (const MethodScenario& m : s.methods) {
      for (const ScenarioInstruction& in : m.instructions) ops.insert(in.op);
    }
  }
  EXPECT_EQ(ops.size(), 7u);
}

}  // namespace
}  // namespace devplan::testing
