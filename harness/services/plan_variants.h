// Other memory plans of a program, for execution evidence (`devplan probe`, `check --probe`):
// the same program with only tensor offsets and buffer sizes changed (runtime_ext/writer/
// plan_rewrite.h), under the lifetime and view rules of runtime_ext/analysis/plan_check.h.
//
//   no reuse            every planned tensor gets bytes of its own in its buffer; an inferred
//                       view keeps its place relative to its base (a plan that separated a view
//                       from its base would change what the program means, not how it reuses);
//   separated value     one tensor (and its views) moved to new bytes past its buffer's end:
//                       whether one static overlap matters in execution;
//   shortened lifetime  the planted plan bug of `probe --inject-bug short-lifetime`: the first
//                       tensor (in instruction order) that a planner believing its lifetime one
//                       instruction shorter could share with the tensor written at its last use
//                       gets that sharing, and nothing else changes.
//
//   Result<PlanVariant> v = no_reuse_variant(image);
//   if (v.ok() && v->changed) open_session(kind, ProgramImage(v->bytes), env, options);
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <harness/engine/program_image.h>
#include <runtime_ext/core/result.h>

namespace devplan::harness {

struct PlanVariant {
  std::vector<uint8_t> bytes;  // the program (the inner one of a bundle), re-planned
  bool changed = false;        // false: no offset or size differs from the original
  // What changed, for the user: "method forward: value 1 (buffer 0 [32, 44)) dies one
  // instruction early; value 2 is placed on its bytes".
  std::string description;
};

// Errors: the program does not load, or the rewrite's.
Result<PlanVariant> no_reuse_variant(const ProgramImage& image);
// NotFound when `method` has no planned tensor `value`.
Result<PlanVariant> separated_variant(const ProgramImage& image, const std::string& method,
                                      int32_t value);
// NotFound when no method has a tensor the bug can be planted on.
Result<PlanVariant> shortened_lifetime_variant(const ProgramImage& image);

}  // namespace devplan::harness
