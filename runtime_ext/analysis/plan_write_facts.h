// Internal to runtime_ext/analysis: which values of a method are written, when first, and which
// are read before anything writes them, by the rules in plan_check.h (check_method_plan and
// find_aliases, plan_view_aliases.h, use them). Include it nowhere else.
#pragma once

#include <climits>
#include <cstdint>
#include <vector>

#include <runtime_ext/program/method_plan.h>

namespace devplan::internal {

// Which values are ever written and when first, and which are read by the first instruction
// that names them (before anything writes them), by the rules in plan_check.h.
struct WriteFacts {
  static constexpr int32_t kBeforeFirstStep = -1;  // method inputs, initial values
  static constexpr int32_t kNever = INT32_MAX;

  std::vector<bool> written;
  std::vector<bool> read_first;
  std::vector<int32_t> first_write;  // per value: the step of its first write, or the above
  std::vector<int32_t> last_read;    // per value: the last step that reads it, or -1
};

WriteFacts write_facts(const MethodPlan& plan);

}  // namespace devplan::internal
