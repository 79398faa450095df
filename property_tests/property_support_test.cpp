// Unit tests of the property-test support: the replay command printed on failure really
// replays the shrunk counterexample, and scenarios print readably in counterexamples.
#include <unistd.h>

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <harness/scenario/rapidcheck_generators.h>
#include "property.h"

namespace devplan::testing {
namespace {

// A RapidCheck listener that prints nothing.
struct Quiet : rc::detail::TestListener {
  void onTestCaseFinished(const rc::detail::CaseDescription&) override {}
  void onShrinkTried(const rc::detail::CaseDescription&, bool) override {}
  void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) override {}
};

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
  Quiet quiet;
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

// ---- The gate's seed, exploration and pinned cases -------------------------------------------

rc::detail::TestMetadata support_metadata() {
  rc::detail::TestMetadata metadata;
  metadata.id = "Support/Failing";
  metadata.description = "Failing";
  return metadata;
}

TEST(PropertySupportTest, TheGateUsesItsSeedAndCaseCountUnlessRcParamsSetsThem) {
  rc::detail::TestParams configured;
  configured.seed = 987654321;  // RapidCheck's random draw when RC_PARAMS has no seed
  configured.maxSuccess = 100;
  configured.maxSize = 50;
  const rc::detail::TestParams plain = gate_params(nullptr, configured);
  EXPECT_EQ(plain.seed, kGateSeed);
  EXPECT_EQ(plain.maxSuccess, kDefaultPropertyCases);
  EXPECT_EQ(plain.maxSize, 50);  // everything else as configured
  EXPECT_EQ(gate_params("", configured).seed, kGateSeed);
  EXPECT_EQ(gate_params("max_size=10", configured).seed, kGateSeed);

  configured.seed = 42;  // what RapidCheck reads from seed=42
  const rc::detail::TestParams seeded = gate_params("seed=42", configured);
  EXPECT_EQ(seeded.seed, 42u);
  EXPECT_EQ(seeded.maxSuccess, kDefaultPropertyCases);
  // seed=0 is a seed like any other, and max_success is kept when given.
  configured.seed = 0;
  EXPECT_EQ(gate_params("max_success=5 seed=0", configured).seed, 0u);
  EXPECT_EQ(gate_params("max_success=5 seed=0", configured).maxSuccess, 100);
  EXPECT_EQ(gate_params("seed=0", configured).maxSuccess, kDefaultPropertyCases);
  // A malformed RC_PARAMS sets nothing here (RapidCheck reports it when it reads it).
  EXPECT_EQ(gate_params("seed=", configured).seed, kGateSeed);
}

TEST(PropertySupportTest, ExploreSeedsAreAWholeNumberInRange) {
  std::string error;
  EXPECT_EQ(parse_explore_seeds(nullptr, &error), 0);
  EXPECT_EQ(parse_explore_seeds("", &error), 0);
  EXPECT_EQ(parse_explore_seeds("1", &error), 1);
  EXPECT_EQ(parse_explore_seeds("300", &error), 300);
  EXPECT_EQ(parse_explore_seeds("1000000", &error), kMaxExploreSeeds);
  EXPECT_EQ(error, "");
  for (const char* bad : {"0", "1000001", "-1", "+3", "3 ", "1e3", "abc", "99999999999999999999"}) {
    error.clear();
    EXPECT_EQ(parse_explore_seeds(bad, &error), std::nullopt) << bad;
    EXPECT_EQ(error, std::string("DEVPLAN_EXPLORE_SEEDS: expects a whole number of seeds from 1 "
                                 "to 1000000, got '") +
                         bad + "'");
  }
}

void passing_property() {
  const auto v = *rc::gen::container<std::vector<int>>(rc::gen::inRange(0, 1000));
  RC_ASSERT(v.size() < 1000u);
}

TEST(PropertySupportTest, TheSameSeedDrawsTheSameCasesAndAnotherSeedOthers) {
  rc::detail::TestParams params;
  params.seed = kGateSeed;
  params.maxSuccess = 300;
  const rc::detail::Property property = rc::detail::toProperty(&passing_property);
  const GateRun first = run_gate(property, support_metadata(), params);
  const GateRun second = run_gate(property, support_metadata(), params);
  EXPECT_TRUE(first.result.template is<rc::detail::SuccessResult>());
  EXPECT_EQ(first.cases, 300);
  EXPECT_EQ(second.cases, 300);
  EXPECT_EQ(first.digest, second.digest);
  params.seed = kGateSeed + 1;
  EXPECT_NE(run_gate(property, support_metadata(), params).digest, first.digest);
  params.seed = kGateSeed;
  params.maxSuccess = 299;
  EXPECT_NE(run_gate(property, support_metadata(), params).digest, first.digest);
}

TEST(PropertySupportTest, ExploreRunsEverySeedAndReportsEachCounterexample) {
  rc::detail::TestParams params;
  params.maxSuccess = 500;
  const rc::detail::Property failing = rc::detail::toProperty(&failing_property);
  ::testing::internal::CaptureStdout();
  const ExploreRun run = explore(failing, support_metadata(), params, {7, 7, 8});
  const std::string printed = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(run.seeds, 3);
  ASSERT_EQ(run.failures.size(), 3u);
  EXPECT_EQ(run.failures[0].seed, 7u);
  EXPECT_EQ(run.failures[2].seed, 8u);
  // Every seed shrinks to the same smallest vector: one distinct counterexample.
  EXPECT_EQ(run.distinct_counterexamples(), 1u);
  EXPECT_NE(run.failures[0].message.find("[0, 300, 0]"), std::string::npos)
      << run.failures[0].message;
  EXPECT_EQ(run.failures[0].reproduce.rfind("reproduce=", 0), 0u);
  EXPECT_NE(printed.find("explore Support.Failing: seed 8 fails\n"), std::string::npos) << printed;
  EXPECT_NE(printed.find("RC_PARAMS=\"" + run.failures[2].reproduce + "\" "), std::string::npos);
  // Each failing seed ran its successes and the failing case.
  rc::detail::TestParams seven = params;
  seven.seed = 7;
  Quiet quiet;
  rc::detail::FailureResult failure;
  ASSERT_TRUE(
      rc::detail::checkProperty(failing, support_metadata(), seven, quiet, {}).match(failure));
  rc::detail::TestParams eight = seven;
  eight.seed = 8;
  rc::detail::FailureResult failure8;
  ASSERT_TRUE(
      rc::detail::checkProperty(failing, support_metadata(), eight, quiet, {}).match(failure8));
  EXPECT_EQ(run.cases, 2 * (failure.numSuccess + 1) + failure8.numSuccess + 1);

  const rc::detail::Property passing = rc::detail::toProperty(&passing_property);
  params.maxSuccess = 20;
  const ExploreRun clean = explore(passing, support_metadata(), params, {1, 2, 3, 4});
  EXPECT_EQ(clean.seeds, 4);
  EXPECT_EQ(clean.cases, 80);
  EXPECT_TRUE(clean.failures.empty());
}

void failing_pinned_case() {
  check_pinned_case([] { RC_ASSERT(1 + 1 == 3); });
}

TEST(PropertySupportTest, APinnedCaseRunsOnceAndReportsItsAssertion) {
  int runs = 0;
  check_pinned_case([&] {
    ++runs;
    RC_ASSERT(runs >= 1);
  });
  EXPECT_EQ(runs, 1);
  EXPECT_NONFATAL_FAILURE(failing_pinned_case(), "RC_ASSERT(1 + 1 == 3)");
}

}  // namespace
}  // namespace devplan::testing
