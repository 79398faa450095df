// Re-planning an existing program (`devplan replan`): every planned buffer of every method gets
// new tensor offsets from devplan's planners, under the lifetime rules of
// runtime_ext/analysis/plan_check.h (views move with their base, mutable buffers live throughout,
// inputs until their last use, outputs to the end). Only offsets and buffer sizes change, in the
// file as it is (runtime_ext/writer/plan_rewrite.h): every other field and the segment bytes stay.
// A buffer whose new plan would not be smaller keeps its original layout. A bundled program
// (.bpte) is re-planned inside: the result is the bundle with the same test sets.
//
//   Result<ReplanResult> r = replan_program(bytes, PlannerAlgorithm::Best);
//   write(r->bytes);   // r->methods[m].buffers[b]: old size, new size, lower bound
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <harness/engine/program_image.h>
#include <runtime_ext/analysis/plan_check.h>
#include <runtime_ext/core/device.h>
#include <runtime_ext/core/result.h>
#include <runtime_ext/planning/offset_planner.h>
#include <runtime_ext/program/method_plan.h>
#include <runtime_ext/writer/plan_rewrite.h>

namespace devplan::harness {

struct ReplanBuffer {
  size_t index = 0;
  Device device;
  uint64_t old_size = 0;
  uint64_t new_size = 0;      // == old_size when kept
  uint64_t lower_bound = 0;   // the largest total of live bytes (aligned to 16) at one step
  uint64_t planned_size = 0;  // the size of our plan, kept or not
  uint64_t proven_bound = 0;  // proven: no plan of the buffer is smaller (the planner's bound)
  bool kept = false;          // ours would not have been smaller: the original layout stays
  PlannerAlgorithm algorithm = PlannerAlgorithm::Naive;  // the plan's, when not kept
};

struct ReplanMethod {
  std::string name;
  std::vector<ReplanBuffer> buffers;
};

struct ReplanResult {
  std::vector<ReplanMethod> methods;
  std::vector<uint8_t> bytes;  // the re-planned program
  size_t appended_tables = 0;  // see RewrittenProgram::appended
};

// Errors: the program does not load (its error), a method does not validate, a planner error.
// `budget_steps`: the exact search's nodes per buffer (exact, best); negative: the default.
Result<ReplanResult> replan_program(const ProgramImage& image, PlannerAlgorithm algorithm,
                                    int64_t budget_steps = -1);

// The edits that turn `original` into `replanned` (the same method with other offsets and
// buffer sizes): every planned tensor whose offset changed and every buffer whose size did.
MethodPlanEdits plan_edits(const MethodPlan& original, const MethodPlan& replanned);

// Each method's plan of `program`, copied, checked and handed to `edit`; what `edit` changed,
// method by method (plan_edits). The first error of `edit` or of a method's plan.
Result<std::vector<MethodPlanEdits>> edit_each_method_plan(
    const Program& program, const std::function<Error(MethodPlan&, const MethodCheck&)>& edit);

// The smallest plan the exact planner finds for buffer `b` of `plan` (its tensors under the
// lifetime rules above) and the bound it proves: best == proven_bound when it is the optimum.
struct BufferOptimum {
  uint64_t best = 0;
  uint64_t proven_bound = 0;
  int64_t steps = 0;  // exact search nodes used
  bool optimal() const { return best == proven_bound; }
};
Result<BufferOptimum> buffer_optimum(const MethodPlan& plan, const MethodCheck& check, size_t b,
                                     int64_t budget_steps = -1);

}  // namespace devplan::harness
