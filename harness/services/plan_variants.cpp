#include <harness/services/plan_variants.h>

#include <algorithm>
#include <functional>

#include <harness/services/replan.h>
#include <runtime_ext/analysis/plan_check.h>
#include <runtime_ext/program/program.h>
#include <runtime_ext/writer/plan_rewrite.h>

namespace devplan::harness {
namespace {

// Kernels may use wide loads: every moved tensor starts on a 64-byte boundary.
constexpr uint64_t kVariantAlignment = 64;
// No variant's buffer grows past this: far beyond what can execute, and no overflow below it.
constexpr uint64_t kMaxVariantBytes = uint64_t{1} << 56;

Error too_large(const std::string& method, size_t buffer) {
  return Error(ErrorCode::MemoryAllocationFailed,
               "method '" + method + "': buffer " + std::to_string(buffer) + " would exceed " +
                   std::to_string(kMaxVariantBytes) + " bytes in the re-planned program");
}

uint64_t align_up(uint64_t n) {
  return (n + kVariantAlignment - 1) / kVariantAlignment * kVariantAlignment;
}

bool planned_in(const ValueInfo& v, size_t buffer) {
  return v.tag == ValueTag::Tensor && v.tensor.is_planned() && v.tensor.buffer_index == buffer;
}

// Moves every view of a moved base along with it (offsets relative to the base kept).
void move_views(MethodPlan& plan, const MethodPlan& original, const MethodCheck& check) {
  for (size_t v = 0; v < plan.values.size(); ++v) {
    const int32_t base = check.alias_of[v];
    if (base < 0) continue;
    const uint64_t delta = original.values[v].tensor.offset - original.values[base].tensor.offset;
    plan.values[v].tensor.offset = plan.values[base].tensor.offset + delta;
    const size_t b = plan.values[v].tensor.buffer_index;
    plan.buffer_sizes[b] =
        std::max(plan.buffer_sizes[b], plan.values[v].tensor.offset + plan.values[v].tensor.nbytes);
  }
}

// Each method re-planned by `edit` (false: unchanged, whatever it did to the plan), written
// back into the program.
Result<PlanVariant> rewrite_each_method(
    const ProgramImage& image,
    const std::function<Result<bool>(MethodPlan&, const MethodCheck&, std::string*)>& edit) {
  DEVPLAN_ASSIGN_OR_RETURN(Program program, image.program());
  PlanVariant variant;
  DEVPLAN_ASSIGN_OR_RETURN(
      std::vector<MethodPlanEdits> edits,
      edit_each_method_plan(program, [&](MethodPlan& plan, const MethodCheck& check) -> Error {
        const MethodPlan original = plan;
        DEVPLAN_ASSIGN_OR_RETURN(bool changed, edit(plan, check, &variant.description));
        if (!changed) plan = original;
        return Error::success();
      }));
  for (const MethodPlanEdits& e : edits) {
    variant.changed = variant.changed || !e.tensor_offsets.empty() || !e.buffer_sizes.empty();
  }
  if (!variant.changed) {
    variant.bytes = image.to_vector();
    return variant;
  }
  DEVPLAN_ASSIGN_OR_RETURN(RewrittenProgram rewritten, rewrite_memory_plan(image.bytes(), edits));
  variant.bytes = std::move(rewritten.bytes);
  return variant;
}

std::string range_text(const TensorInfo& t) {
  return "buffer " + std::to_string(t.buffer_index) + " [" + std::to_string(t.offset) + ", " +
         std::to_string(t.offset + t.nbytes) + ")";
}

}  // namespace

Result<PlanVariant> no_reuse_variant(const ProgramImage& image) {
  return rewrite_each_method(
      image, [](MethodPlan& plan, const MethodCheck& check, std::string*) -> Result<bool> {
        const MethodPlan original = plan;
        for (size_t b = 0; b < plan.buffer_sizes.size(); ++b) {
          uint64_t end = 0;
          for (size_t v = 0; v < plan.values.size(); ++v) {
            if (!planned_in(plan.values[v], b) || check.alias_of[v] >= 0) continue;
            const uint64_t nbytes = plan.values[v].tensor.nbytes;
            if (nbytes > kMaxVariantBytes - end) return too_large(plan.name, b);
            plan.values[v].tensor.offset = end;
            end += align_up(nbytes);
          }
          plan.buffer_sizes[b] = end;
        }
        move_views(plan, original, check);
        return true;
      });
}

Result<PlanVariant> separated_variant(const ProgramImage& image, const std::string& method,
                                      int32_t value) {
  bool found = false;
  DEVPLAN_ASSIGN_OR_RETURN(
      PlanVariant variant,
      rewrite_each_method(image,
                          [&](MethodPlan& plan, const MethodCheck& check,
                              std::string* description) -> Result<bool> {
                            if (plan.name != method) return false;
                            if (value < 0 || static_cast<size_t>(value) >= plan.values.size() ||
                                plan.values[value].tag != ValueTag::Tensor ||
                                !plan.values[value].tensor.is_planned()) {
                              return false;
                            }
                            found = true;
                            const MethodPlan original = plan;
                            TensorInfo& t = plan.values[value].tensor;
                            if (plan.buffer_sizes[t.buffer_index] >
                                kMaxVariantBytes - t.nbytes - kVariantAlignment) {
                              return too_large(method, t.buffer_index);
                            }
                            t.offset = align_up(plan.buffer_sizes[t.buffer_index]);
                            plan.buffer_sizes[t.buffer_index] = t.offset + t.nbytes;
                            move_views(plan, original, check);
                            *description = "method " + method + ": value " + std::to_string(value) +
                                           " moved to " + range_text(t);
                            return true;
                          }));
  if (!found) {
    return Error(ErrorCode::NotFound,
                 "method '" + method + "' has no planned tensor value " + std::to_string(value));
  }
  return variant;
}

Result<PlanVariant> shortened_lifetime_variant(const ProgramImage& image) {
  bool planted = false;
  DEVPLAN_ASSIGN_OR_RETURN(
      PlanVariant variant,
      rewrite_each_method(
          image,
          [&](MethodPlan& plan, const MethodCheck& check,
              std::string* description) -> Result<bool> {
            if (planted) return false;
            const auto outputs_contain = [&](int32_t v) {
              return std::find(plan.outputs.begin(), plan.outputs.end(), v) != plan.outputs.end();
            };
            const auto inputs_contain = [&](int32_t v) {
              return std::find(plan.inputs.begin(), plan.inputs.end(), v) != plan.inputs.end();
            };
            const auto sharable = [&](int32_t v) {
              const ValueInfo& value = plan.values[v];
              return value.tag == ValueTag::Tensor && value.tensor.is_planned() &&
                     value.tensor.nbytes > 0 && check.alias_of[v] < 0 && !check.mutable_buffer[v] &&
                     check.own_lifetimes[v].planned();
            };
            const int32_t n = static_cast<int32_t>(plan.values.size());
            // First a tensor written over a smaller one it reads (a broadcast: corrupts in place),
            // then any.
            for (const bool larger_only : {true, false}) {
              for (int32_t step = 0; step < check.num_steps; ++step) {
                for (int32_t t = 0; t < n; ++t) {
                  if (!sharable(t) || outputs_contain(t) || check.own_lifetimes[t].last != step)
                    continue;
                  for (int32_t u = 0; u < n; ++u) {
                    if (u == t || !sharable(u) || inputs_contain(u) ||
                        check.own_lifetimes[u].first != step ||
                        plan.values[u].tensor.buffer_index != plan.values[t].tensor.buffer_index) {
                      continue;
                    }
                    const TensorInfo tt =
                        plan.values[t].tensor;  // a copy: `plan` is replaced below
                    if (larger_only && plan.values[u].tensor.nbytes <= tt.nbytes) continue;
                    const size_t b = tt.buffer_index;
                    if (tt.offset + plan.values[u].tensor.nbytes > plan.buffer_sizes[b]) continue;
                    MethodPlan edited = plan;
                    edited.values[u].tensor.offset = tt.offset;
                    move_views(edited, plan, check);
                    if (edited.buffer_sizes[b] != plan.buffer_sizes[b]) continue;
                    // The plan a planner that thought t dead at `step` could make: every overlap is
                    // t's with u.
                    const MethodCheck after = check_method_plan(edited);
                    bool only_pair = !after.overlaps.empty();
                    for (const Overlap& o : after.overlaps) {
                      only_pair = only_pair && ((o.value_a == t && o.value_b == u) ||
                                                (o.value_a == u && o.value_b == t));
                    }
                    if (!only_pair) continue;
                    plan = std::move(edited);
                    planted = true;
                    *description = "method " + plan.name + ": value " + std::to_string(t) + " (" +
                                   range_text(tt) +
                                   ") taken as dead one instruction before its last "
                                   "use, instruction " +
                                   std::to_string(step) + "; value " + std::to_string(u) +
                                   ", written there, is placed on its bytes";
                    return true;
                  }
                }
              }
            }
            return false;
          }));
  if (!planted) {
    return Error(ErrorCode::NotFound,
                 "no tensor of the program can take the short-lifetime bug (none is read last by "
                 "an instruction that writes a tensor of its buffer that fits on its bytes)");
  }
  return variant;
}

}  // namespace devplan::harness
