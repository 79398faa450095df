// What `devplan plot` draws: the selected methods of a program, each with its plan's check.
#pragma once

#include <string>
#include <vector>

#include <runtime_ext/analysis/plan_check.h>
#include <runtime_ext/core/result.h>
#include <runtime_ext/program/method_plan.h>

namespace devplan {
class Program;
}  // namespace devplan

namespace devplan::harness {

// A method to draw: its plan and what check_method_plan finds in it.
struct PlotMethod {
  const MethodPlan* plan = nullptr;
  MethodCheck check;
};

// The selected methods of `program` (every method when `methods` is empty) with their checks.
// NotFound naming an unknown method.
Result<std::vector<PlotMethod>> plot_methods(const Program& program,
                                             const std::vector<std::string>& methods);

}  // namespace devplan::harness
