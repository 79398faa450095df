// Comparing MethodPlans: equality by content (spans are compared byte by byte, not by address),
// with a readable description of the first difference, for round-trip tests and tools.
//
//   std::string diff = method_plan_difference(written, read_back);
//   EXPECT_EQ(diff, "");   // e.g. "value 4: tensor.offset: 16 vs 32" when they differ
#pragma once

#include <runtime_ext/program/method_plan.h>

#include <string>

namespace devplan {

// "" when `a` and `b` hold the same content; otherwise one line naming the first field that
// differs and both values ("buffer_devices[1]: cuda:0 vs cpu:0").
std::string method_plan_difference(const MethodPlan& a, const MethodPlan& b);

// True when method_plan_difference(a, b) is empty.
bool method_plans_equal(const MethodPlan& a, const MethodPlan& b);

}  // namespace devplan
