// Internal to runtime_ext/analysis: the views of a method and their bases, by the rules in
// plan_check.h (check_method_plan uses them). Include it nowhere else.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <runtime_ext/analysis/plan_write_facts.h>
#include <runtime_ext/planning/lifetime.h>
#include <runtime_ext/program/method_plan.h>

namespace devplan::internal {

// The views of a method and their bases (see find_aliases).
struct Aliases {
  std::vector<int32_t> alias_of;  // per value: its base, or -1
  std::vector<bool> scratch;      // per value: every candidate base was dead at its first use
  // per view: the tensors covering it, written before its first use (its possible bases)
  std::vector<std::vector<int32_t>> candidates;
  std::vector<std::string> warnings;  // views whose bytes no live tensor holds
};

// A view is a planned tensor that no instruction writes and that lies inside the bytes of a
// written planned tensor of its buffer. Its base is the tensor that holds the view's bytes when
// the view is first used (step f): of the written tensors covering them, the one written most
// recently before f (an instruction reads its arguments before it writes, so one written at f
// does not count), on a tie the one still named at f or later, then the smaller, then the lower
// index. That base must still hold the bytes: when another tensor written after it and before f
// shares some of them, no tensor is live there and the view has no base (a warning says so).
Aliases find_aliases(const MethodPlan& plan, const WriteFacts& facts,
                     const std::vector<Lifetime>& life);

}  // namespace devplan::internal
