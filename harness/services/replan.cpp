#include <harness/services/replan.h>

#include <algorithm>

#include <runtime_ext/analysis/plan_check.h>
#include <runtime_ext/program/program.h>
#include <runtime_ext/writer/bundled_program_rewrite.h>
#include <runtime_ext/writer/plan_rewrite.h>

namespace devplan::harness {
namespace {

constexpr uint64_t kReplanAlignment = 16;  // the exporter's and the lower bound's

// The tensors of buffer `b` a planner places: one item per tensor that is not a view.
struct BufferItems {
  std::vector<PlanItem> items;
  std::vector<int32_t> owners;  // value index per item
  uint64_t unnamed_bytes = 0;   // planned tensors no instruction names: at offset 0
};

// The view reading (an inferred view moves with its base and keeps it alive) is what replanning
// keeps: a plan valid under it is valid under the other. `own_reading` gives every tensor its own
// memory and its own lifetime instead.
BufferItems buffer_items(const MethodPlan& plan, const MethodCheck& check, size_t b,
                         bool own_reading = false) {
  BufferItems out;
  std::vector<PlanItem>& items = out.items;
  std::vector<int32_t>& owners = out.owners;
  uint64_t& unnamed_bytes = out.unnamed_bytes;
  for (size_t v = 0; v < plan.values.size(); ++v) {
    const ValueInfo& value = plan.values[v];
    if (value.tag != ValueTag::Tensor || !value.tensor.is_planned() ||
        value.tensor.buffer_index != b) {
      continue;
    }
    if (check.alias_of[v] >= 0 && !own_reading) continue;
    const Lifetime& l = own_reading ? check.own_lifetimes[v] : check.lifetimes[v];
    if (l.first < 0 || value.tensor.nbytes == 0) {
      unnamed_bytes = std::max(unnamed_bytes, value.tensor.nbytes);
      continue;
    }
    items.push_back(PlanItem{value.tensor.nbytes, l.first, l.last});
    owners.push_back(static_cast<int32_t>(v));
  }
  return out;
}

// Re-plans buffer `b` of `plan` in place when that makes it smaller.
Result<ReplanBuffer> replan_buffer(MethodPlan& plan, const MethodCheck& check, size_t b,
                                   PlannerAlgorithm algorithm, int64_t budget_steps) {
  ReplanBuffer out;
  out.index = b;
  out.device = plan.buffer_devices[b];
  out.old_size = plan.buffer_sizes[b];
  out.lower_bound = check.buffers[b].view_lower_bound;  // replanning keeps views with their bases
  const BufferItems buffer = buffer_items(plan, check, b);
  const std::vector<int32_t>& owners = buffer.owners;
  const uint64_t unnamed_bytes = buffer.unnamed_bytes;
  OffsetPlannerOptions options;
  options.alignment = kReplanAlignment;
  options.budget_steps = budget_steps;
  DEVPLAN_ASSIGN_OR_RETURN(OffsetPlan offsets, plan_offsets(buffer.items, algorithm, options));
  out.proven_bound = std::max(offsets.lower_bound, unnamed_bytes);
  out.algorithm = offsets.algorithm;
  const uint64_t new_size = std::max(offsets.size, unnamed_bytes);
  out.planned_size = new_size;
  if (new_size >= out.old_size) {
    out.kept = true;
    out.new_size = out.old_size;
    return out;
  }
  // Views move with their base; unnamed tensors go to offset 0.
  std::vector<uint64_t> old_offsets(plan.values.size(), 0);
  for (size_t v = 0; v < plan.values.size(); ++v) {
    if (plan.values[v].tag == ValueTag::Tensor) old_offsets[v] = plan.values[v].tensor.offset;
  }
  for (size_t i = 0; i < owners.size(); ++i)
    plan.values[owners[i]].tensor.offset = offsets.offsets[i];
  for (size_t v = 0; v < plan.values.size(); ++v) {
    ValueInfo& value = plan.values[v];
    if (value.tag != ValueTag::Tensor || !value.tensor.is_planned() ||
        value.tensor.buffer_index != b) {
      continue;
    }
    const int32_t base = check.alias_of[v];
    if (base >= 0) {
      value.tensor.offset = plan.values[base].tensor.offset + (old_offsets[v] - old_offsets[base]);
    } else if (check.lifetimes[v].first < 0 || value.tensor.nbytes == 0) {
      value.tensor.offset = 0;
    }
  }
  plan.buffer_sizes[b] = new_size;
  out.new_size = new_size;
  return out;
}

}  // namespace

MethodPlanEdits plan_edits(const MethodPlan& original, const MethodPlan& replanned) {
  MethodPlanEdits edits;
  for (size_t v = 0; v < original.values.size(); ++v) {
    const ValueInfo& before = original.values[v];
    if (before.tag != ValueTag::Tensor || !before.tensor.is_planned()) continue;
    const uint64_t offset = replanned.values[v].tensor.offset;
    if (offset != before.tensor.offset)
      edits.tensor_offsets.push_back({static_cast<int32_t>(v), offset});
  }
  for (size_t b = 0; b < original.buffer_sizes.size(); ++b) {
    if (replanned.buffer_sizes[b] != original.buffer_sizes[b]) {
      edits.buffer_sizes.push_back({b, replanned.buffer_sizes[b]});
    }
  }
  return edits;
}

Result<BufferOptimum> buffer_optimum(const MethodPlan& plan, const MethodCheck& check, size_t b,
                                     int64_t budget_steps) {
  OffsetPlannerOptions options;
  options.alignment = kReplanAlignment;
  options.budget_steps = budget_steps;
  BufferOptimum out;
  // Under either reading of the inferred views (as the lower bound): a plan valid only if a
  // never-written tensor is scratch memory is still a plan the runtime may run correctly.
  bool has_views = false;
  for (size_t v = 0; v < check.alias_of.size(); ++v) {
    has_views = has_views || (check.alias_of[v] >= 0 && plan.values[v].tensor.buffer_index == b);
  }
  for (const bool own_reading : {false, true}) {
    if (own_reading && !has_views) break;
    const BufferItems buffer = buffer_items(plan, check, b, own_reading);
    DEVPLAN_ASSIGN_OR_RETURN(OffsetPlan offsets,
                             plan_offsets(buffer.items, PlannerAlgorithm::Exact, options));
    const uint64_t best = std::max(offsets.size, buffer.unnamed_bytes);
    const uint64_t bound = std::max(offsets.lower_bound, buffer.unnamed_bytes);
    out.best = own_reading ? std::min(out.best, best) : best;
    out.proven_bound = own_reading ? std::min(out.proven_bound, bound) : bound;
    out.steps += offsets.exact_steps;
  }
  return out;
}

Result<std::vector<MethodPlanEdits>> edit_each_method_plan(
    const Program& program, const std::function<Error(MethodPlan&, const MethodCheck&)>& edit) {
  std::vector<MethodPlanEdits> edits;
  for (size_t m = 0; m < program.num_methods(); ++m) {
    DEVPLAN_ASSIGN_OR_RETURN(const MethodPlan* original, program.method_plan_at(m));
    MethodPlan plan = *original;
    DEVPLAN_RETURN_IF_ERROR(edit(plan, check_method_plan(plan)));
    edits.push_back(plan_edits(*original, plan));
  }
  return edits;
}

Result<ReplanResult> replan_program(const ProgramImage& image, PlannerAlgorithm algorithm,
                                    int64_t budget_steps) {
  DEVPLAN_ASSIGN_OR_RETURN(Program program, image.program());
  ReplanResult result;
  DEVPLAN_ASSIGN_OR_RETURN(
      std::vector<MethodPlanEdits> edits,
      edit_each_method_plan(program, [&](MethodPlan& plan, const MethodCheck& check) -> Error {
        ReplanMethod method;
        method.name = plan.name;
        for (size_t b = 0; b < plan.buffer_sizes.size(); ++b) {
          DEVPLAN_ASSIGN_OR_RETURN(ReplanBuffer buffer,
                                   replan_buffer(plan, check, b, algorithm, budget_steps));
          method.buffers.push_back(buffer);
        }
        result.methods.push_back(std::move(method));
        return Error::success();
      }));
  DEVPLAN_ASSIGN_OR_RETURN(RewrittenProgram rewritten, rewrite_memory_plan(image.bytes(), edits));
  result.appended_tables = rewritten.appended;
  if (image.bundled() != nullptr) {
    // A bundled program stays one: the same test sets around the re-planned program.
    DEVPLAN_ASSIGN_OR_RETURN(result.bytes,
                             with_replaced_program(image.file_bytes(), rewritten.bytes));
    return result;
  }
  result.bytes = std::move(rewritten.bytes);
  return result;
}

}  // namespace devplan::harness
