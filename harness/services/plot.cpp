#include <harness/services/plot.h>

#include <runtime_ext/program/program.h>

namespace devplan::harness {

// The selected methods of `program` (every method when `methods` is empty) with their checks.
// NotFound naming an unknown method.
Result<std::vector<PlotMethod>> plot_methods(const Program& program,
                                             const std::vector<std::string>& methods) {
  std::vector<PlotMethod> plots;
  for (size_t i = 0; i < program.num_methods(); ++i) {
    DEVPLAN_ASSIGN_OR_RETURN(const MethodPlan* plan, program.method_plan_at(i));
    bool wanted = methods.empty();
    for (const std::string& m : methods) wanted |= m == plan->name;
    if (wanted) plots.push_back(PlotMethod{plan, check_method_plan(*plan)});
  }
  for (const std::string& m : methods) {
    if (program.method_status(m).code() == ErrorCode::NotFound) {
      return Error(ErrorCode::NotFound, "the program has no method '" + m + "'");
    }
  }
  return plots;
}

}  // namespace devplan::harness
