// The check of Execution.BuffersMatchTheHostModel, shared with the regression cases that pin its
// counterexamples (regression_cases_test.cpp): every method of a scenario runs on fresh
// simulated devices, inputs from input_pattern(salt); afterwards every planned buffer (host and
// device) and every output holds what HostModel computes (NaN results as values).
#pragma once

#include <cstdint>

#include <harness/scenario/model.h>

namespace devplan::testing {

// RC_ASSERTs; call it inside a property or check_pinned_case.
void check_execution_matches_model(const ProgramScenario& s, uint32_t salt);

}  // namespace devplan::testing
