// `devplan check`'s analysis of a program file: each method's plan checked for tensors that share
// bytes while live (runtime_ext/analysis/plan_check.h), and each buffer's exact optimum.
#pragma once

#include <string>
#include <vector>

#include <harness/services/replan.h>
#include <runtime_ext/analysis/plan_check.h>
#include <runtime_ext/core/result.h>

namespace devplan::harness {

// Checks every method of the program in `file`.
Result<std::vector<MethodCheck>> check_program_file(const std::string& file);

// Per method and buffer of the program: the exact planner's optimum or bounds (replan.h).
Result<std::vector<std::vector<BufferOptimum>>> buffer_optimums(const std::string& file,
                                                                int64_t budget_steps = -1);

}  // namespace devplan::harness
