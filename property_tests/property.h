// DEVPLAN_PROP: RC_GTEST_PROP that runs the same cases in every gate run and, when the
// property fails, also prints the exact command that replays the shrunk counterexample:
//
//   DEVPLAN_PROP(Placement, OneAllocationPerDeviceBuffer, ()) {
//     const ProgramScenario s = *gen_program_scenario();
//     RC_ASSERT(...);
//   }
//
// On failure the GoogleTest message ends with
//
//   Reproduce with:
//     RC_PARAMS="reproduce=BAhYS..." /path/to/build/bin/property_tests
//     --gtest_filter=Placement.OneAllocationPerDeviceBuffer
//
// (the binary's absolute path, from /proc/self/exe).
//
// The gate draws every property's cases from kGateSeed and prints a digest of them;
// DEVPLAN_EXPLORE_SEEDS=N explores N random seeds instead; a counterexample is pinned with
// check_pinned_case (regression_cases_test.cpp). docs/testing.md says how and why.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>

namespace devplan::testing {

// The one seed of the gate.
constexpr uint64_t kGateSeed = 20261204;
constexpr int kDefaultPropertyCases = 300;
// The largest DEVPLAN_EXPLORE_SEEDS accepted.
constexpr int kMaxExploreSeeds = 1000000;

// The command line that reruns test `suite`.`name` of this binary with `rc_params` in the
// environment: RC_PARAMS="<rc_params>" <binary> --gtest_filter=<suite>.<name>
std::string replay_command(const std::string& rc_params, const std::string& suite,
                           const std::string& name);

// The RC_PARAMS value that reproduces `failure` of the property with RapidCheck id `id`.
std::string reproduce_params(const std::string& id, const rc::detail::FailureResult& failure);

// The parameters a property runs with when RC_PARAMS is `rc_params` (may be null) and
// RapidCheck's configuration is `configured`: seed kGateSeed and kDefaultPropertyCases cases
// unless `rc_params` sets seed or max_success.
rc::detail::TestParams gate_params(const char* rc_params, const rc::detail::TestParams& configured);
// gate_params of this process's RC_PARAMS. Before RapidCheck first reads its configuration it
// also puts the gate seed into RC_PARAMS, so that RapidCheck's "Using configuration: seed=..."
// line names the seed the cases come from.
rc::detail::TestParams property_params();

// DEVPLAN_EXPLORE_SEEDS: 0 when `text` is null or empty, the number when it is a whole number
// from 1 to kMaxExploreSeeds, otherwise nullopt and `error` says why.
std::optional<int> parse_explore_seeds(const char* text, std::string* error);

// One gate run of a property: RapidCheck's result, the cases run and their digest (FNV-1a over
// every case's drawn values and outcome; two runs with the same seed print the same digest).
struct GateRun {
  rc::detail::TestResult result;
  int cases = 0;
  uint64_t digest = 0;
};
GateRun run_gate(const rc::detail::Property& property, const rc::detail::TestMetadata& metadata,
                 const rc::detail::TestParams& params);

// An exploration over many seeds: the cases run in all, and one entry per seed that failed.
struct ExploreFailure {
  uint64_t seed = 0;
  std::string message;         // RapidCheck's message: cases run, counterexample, assertion
  std::string counterexample;  // the shrunk values and the failed assertion alone
  std::string reproduce;       // the RC_PARAMS value that replays the shrunk case
};
struct ExploreRun {
  int seeds = 0;
  int64_t cases = 0;
  std::vector<ExploreFailure> failures;
  size_t distinct_counterexamples() const;
};
// Runs `property` from each of `seeds` with `params` otherwise; prints each counterexample as
// it is found.
ExploreRun explore(const rc::detail::Property& property, const rc::detail::TestMetadata& metadata,
                   rc::detail::TestParams params, const std::vector<uint64_t>& seeds);

// Reports a finished property to GoogleTest: nothing (or the distribution) on success, a
// failure with RapidCheck's message and the replay command otherwise.
void report_property_result(const rc::detail::TestResult& result);

// The property of the current GoogleTest test: the gate run, or the exploration when
// DEVPLAN_EXPLORE_SEEDS is set.
void run_property(const rc::detail::Property& property);
// One pinned case: `property` (which draws nothing) run once; a failure reports RapidCheck's
// message. DEVPLAN_EXPLORE_SEEDS does not repeat it.
void run_pinned_case(const rc::detail::Property& property);

template <typename Testable>
void check_property(Testable&& testable) {
  run_property(rc::detail::toProperty(std::forward<Testable>(testable)));
}

// Runs `body` (a callable with RC_ASSERTs and no generators) once, as a regression case.
template <typename Body>
void check_pinned_case(Body&& body) {
  run_pinned_case(rc::detail::toProperty(std::forward<Body>(body)));
}

}  // namespace devplan::testing

#define DEVPLAN_PROP(Suite, Name, ArgList)                                                  \
  void devplan_prop_##Suite##_##Name ArgList;                                               \
  TEST(Suite, Name) { ::devplan::testing::check_property(&devplan_prop_##Suite##_##Name); } \
  void devplan_prop_##Suite##_##Name ArgList
