// DEVPLAN_PROP: RC_GTEST_PROP that, when the property fails, also prints the exact command
// that replays the shrunk counterexample:
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
// (the binary's absolute path, from /proc/self/exe). The number of cases and the seed come
// from RapidCheck's own environment variable, e.g. RC_PARAMS="max_success=2000 seed=42";
// without max_success there, a property runs kDefaultPropertyCases cases (RapidCheck's own
// default is 100).
#pragma once

#include <string>

#include <gtest/gtest.h>
#include <rapidcheck.h>

namespace devplan::testing {

// The command line that reruns test `suite`.`name` of this binary with `rc_params` in the
// environment: RC_PARAMS="<rc_params>" <binary> --gtest_filter=<suite>.<name>
std::string replay_command(const std::string& rc_params, const std::string& suite,
                           const std::string& name);

// The RC_PARAMS value that reproduces `failure` of the property with RapidCheck id `id`.
std::string reproduce_params(const std::string& id, const rc::detail::FailureResult& failure);

constexpr int kDefaultPropertyCases = 300;

// RapidCheck's parameters (from RC_PARAMS), with max_success = kDefaultPropertyCases unless
// RC_PARAMS sets it.
rc::detail::TestParams property_params();

// Reports a finished property to GoogleTest: nothing (or the distribution) on success, a
// failure with RapidCheck's message and the replay command otherwise.
void report_property_result(const rc::detail::TestResult& result);

template <typename Testable>
void check_property(Testable&& testable) {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  rc::detail::TestMetadata metadata;
  metadata.id = std::string(info->test_suite_name()) + "/" + info->name();
  metadata.description = info->name();
  report_property_result(
      rc::detail::checkTestable(std::forward<Testable>(testable), metadata, property_params()));
}

}  // namespace devplan::testing

#define DEVPLAN_PROP(Suite, Name, ArgList)                                                  \
  void devplan_prop_##Suite##_##Name ArgList;                                               \
  TEST(Suite, Name) { ::devplan::testing::check_property(&devplan_prop_##Suite##_##Name); } \
  void devplan_prop_##Suite##_##Name ArgList
