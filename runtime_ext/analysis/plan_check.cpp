#include <runtime_ext/analysis/plan_check.h>

#include <algorithm>
#include <tuple>
#include <utility>

#include <runtime_ext/analysis/plan_view_aliases.h>
#include <runtime_ext/analysis/plan_write_facts.h>
#include <runtime_ext/planning/offset_planner.h>
#include <runtime_ext/planning/plan_verifier.h>

namespace devplan {
namespace {

constexpr uint64_t kCheckAlignment = 16;

// Step `step` names `value` and, for tensor lists, the values it lists.
void name_value(const MethodPlan& plan, LifetimeRecorder& recorder, int32_t value, int32_t step) {
  recorder.use(value, step);
  const ValueInfo& v = plan.values[value];
  if (v.tag == ValueTag::TensorList || v.tag == ValueTag::OptionalTensorList) {
    for (int32_t item : v.value_list) {
      if (item != kNoneListItem) recorder.use(item, step);
    }
  }
}

}  // namespace

std::vector<Lifetime> value_lifetimes(const MethodPlan& plan, int32_t* num_steps) {
  LifetimeRecorder recorder(plan.values.size());
  int32_t step = 0;
  for (const ChainInfo& chain : plan.chains) {
    for (const InstructionInfo& ins : chain.instructions) {
      switch (ins.kind) {
        case InstructionKind::KernelCall:
        case InstructionKind::DelegateCall:
          for (int32_t arg : ins.args) name_value(plan, recorder, arg, step);
          break;
        case InstructionKind::Move:
          name_value(plan, recorder, ins.move_from, step);
          name_value(plan, recorder, ins.move_to, step);
          break;
        case InstructionKind::JumpFalse:
          name_value(plan, recorder, ins.cond_value, step);
          break;
        case InstructionKind::Free:
          name_value(plan, recorder, ins.free_value, step);
          break;
      }
      ++step;
    }
  }
  *num_steps = num_steps_for(static_cast<size_t>(step));
  return std::move(recorder).finish(plan.inputs, plan.outputs, *num_steps);
}

namespace {

using internal::Aliases;
using internal::find_aliases;
using internal::write_facts;
using internal::WriteFacts;

// The overlaps of `items` (tensors `owners` at `offsets`) in buffer `b`, each with the tensor
// that starts first as value_a.
std::vector<Overlap> buffer_overlaps(size_t b, uint64_t size, const std::vector<PlanItem>& items,
                                     const std::vector<uint64_t>& offsets,
                                     const std::vector<int32_t>& owners) {
  std::vector<Overlap> found;
  // Alignment 1: a misaligned offset is not an overlap, and placement is the loader's check.
  for (const PlanViolation& v : verify_offsets(items, offsets, size, 1)) {
    if (v.kind != PlanViolationKind::Overlap) continue;
    size_t x = static_cast<size_t>(v.tensor), y = static_cast<size_t>(v.other);
    if (items[y].first < items[x].first ||
        (items[y].first == items[x].first && owners[y] < owners[x])) {
      std::swap(x, y);
    }
    Overlap o;
    o.buffer = b;
    o.value_a = owners[x];
    o.value_b = owners[y];
    o.a_begin = offsets[x];
    o.a_end = offsets[x] + items[x].size;
    o.b_begin = offsets[y];
    o.b_end = offsets[y] + items[y].size;
    o.first_step = std::max(items[x].first, items[y].first);
    o.last_step = std::min(items[x].last, items[y].last);
    found.push_back(o);
  }
  return found;
}

// The tensors of one buffer for buffer_overlaps and the lower bound.
struct BufferItems {
  std::vector<PlanItem> items;
  std::vector<uint64_t> offsets;
  std::vector<int32_t> owners;
  void add(const TensorInfo& t, const Lifetime& l, int32_t v) {
    items.push_back(PlanItem{t.nbytes, l.first, l.last});
    offsets.push_back(t.offset);
    owners.push_back(v);
  }
};

std::string bytes_text(uint64_t begin, uint64_t end) {
  return "[" + std::to_string(begin) + ", " + std::to_string(end) + ")";
}

// The note for an overlap that only the view reading has (see check_method_plan).
std::string view_reading_note(const Overlap& o, const MethodCheck& check,
                              const std::vector<Lifetime>& own, const MethodPlan& plan,
                              const std::vector<bool>& scratch) {
  std::string text = "values " + std::to_string(o.value_a) + " " + bytes_text(o.a_begin, o.a_end) +
                     " and " + std::to_string(o.value_b) + " " + bytes_text(o.b_begin, o.b_end) +
                     " of buffer " + std::to_string(o.buffer) +
                     " share bytes during instructions " + std::to_string(o.first_step) + ".." +
                     std::to_string(o.last_step) + " only if ";
  for (size_t v = 0; v < check.alias_of.size(); ++v) {
    const int32_t base = check.alias_of[v];
    if (base != o.value_a && base != o.value_b) continue;
    if (own[v].last <= own[base].last || own[v].last < o.first_step) continue;
    const TensorInfo& t = plan.values[v].tensor;
    return text + "value " + std::to_string(v) + " " + bytes_text(t.offset, t.offset + t.nbytes) +
           ", which no instruction writes, is a view of value " + std::to_string(base) +
           " (it keeps value " + std::to_string(base) + " live to instruction " +
           std::to_string(own[v].last) + "); read as " +
           (scratch[v] ? "scratch memory of instructions " : "a tensor of its own, live at ") +
           std::to_string(own[v].first) + ".." + std::to_string(own[v].last) +
           ", it is not. No instruction says which: not an overlap";
  }
  return text + "never-written tensors are views of the tensors around them: not an overlap";
}

}  // namespace

MethodCheck check_method_plan(const MethodPlan& plan) {
  MethodCheck check;
  check.name = plan.name;
  check.lifetimes = value_lifetimes(plan, &check.num_steps);
  const WriteFacts facts = write_facts(plan);
  Aliases aliases = find_aliases(plan, facts, check.lifetimes);
  check.alias_of = std::move(aliases.alias_of);
  check.written = facts.written;
  check.warnings = std::move(aliases.warnings);
  check.notes = plan.notes;  // what the parser read leniently, as ExecuTorch does
  const std::vector<bool>& read_first = facts.read_first;
  check.mutable_buffer.assign(plan.values.size(), false);
  std::vector<bool> is_input(plan.values.size(), false);
  for (int32_t input : plan.inputs) is_input[input] = true;
  for (size_t v = 0; v < plan.values.size(); ++v) {
    const ValueInfo& value = plan.values[v];
    if (value.tag != ValueTag::Tensor || !value.tensor.is_planned()) continue;
    if (check.alias_of[v] < 0 && read_first[v] && !is_input[v]) check.mutable_buffer[v] = true;
  }
  for (size_t v = 0; v < plan.values.size(); ++v) {
    if (check.mutable_buffer[v]) check.lifetimes[v] = Lifetime{0, check.num_steps - 1};
  }
  // Each tensor's own lifetime: what the program states. Whether a never-written tensor inside
  // a written one is a view of it or scratch memory of its own instructions is devplan's
  // inference: a finding (an overlap, the lower bound) must hold under both readings, and what
  // only the view reading has is a note.
  check.own_lifetimes = check.lifetimes;
  const std::vector<Lifetime>& own = check.own_lifetimes;
  std::vector<bool> inferred(plan.values.size(), false);
  for (size_t v = 0; v < plan.values.size(); ++v) inferred[v] = check.alias_of[v] >= 0;
  // The view reading (plots and replanning keep every reading's bytes): an alias's uses keep its
  // base alive.
  for (size_t v = 0; v < plan.values.size(); ++v) {
    if (check.alias_of[v] >= 0) check.lifetimes[check.alias_of[v]].include(check.lifetimes[v]);
  }
  // A view and a tensor that may be its base (or two views inside one tensor) share bytes by
  // design under the view reading.
  auto may_share = [&](int32_t a, int32_t b) {
    const std::vector<int32_t>& ca = aliases.candidates[a];
    const std::vector<int32_t>& cb = aliases.candidates[b];
    if (inferred[a] && std::find(ca.begin(), ca.end(), b) != ca.end()) return true;
    if (inferred[b] && std::find(cb.begin(), cb.end(), a) != cb.end()) return true;
    if (!inferred[a] || !inferred[b]) return false;
    for (int32_t x : ca) {
      if (std::find(cb.begin(), cb.end(), x) != cb.end()) return true;
    }
    return false;
  };
  const size_t num_buffers = plan.buffer_sizes.size();
  std::vector<BufferItems> stated(num_buffers), viewed(num_buffers);
  for (size_t b = 0; b < num_buffers; ++b) {
    BufferCheck buffer;
    buffer.index = b;
    buffer.device = plan.buffer_devices[b];
    buffer.size = plan.buffer_sizes[b];
    check.buffers.push_back(buffer);
  }
  for (size_t v = 0; v < plan.values.size(); ++v) {
    const ValueInfo& value = plan.values[v];
    if (value.tag == ValueTag::Tensor && value.tensor.storage == TensorStorage::External) {
      check.warnings.push_back("value " + std::to_string(v) + ": external tensor '" +
                               value.tensor.fully_qualified_name +
                               "' (data in a separate .ptd file): not planned, not checked");
      continue;
    }
    if (value.tag != ValueTag::Tensor || !value.tensor.is_planned()) continue;
    const uint32_t b = value.tensor.buffer_index;
    ++check.buffers[b].planned_tensors;
    if (value.tensor.legacy_host) {
      check.warnings.push_back("value " + std::to_string(v) + ": tagged " +
                               value.tensor.device.to_string() + ", planned in host buffer " +
                               std::to_string(b) + " (legacy planning)");
    }
    if (own[v].first < 0 || value.tensor.nbytes == 0) continue;
    const int32_t index = static_cast<int32_t>(v);
    stated[b].add(value.tensor, own[v], index);
    if (!inferred[v]) viewed[b].add(value.tensor, check.lifetimes[v], index);
  }
  std::vector<Overlap> view_reading;
  for (size_t b = 0; b < num_buffers; ++b) {
    // A lower bound under either reading: the smaller of the view reading's (a view counts once,
    // in its base, which it keeps alive) and that of every tensor's own lifetime.
    check.buffers[b].view_lower_bound = live_bytes_lower_bound(viewed[b].items, kCheckAlignment);
    check.buffers[b].lower_bound =
        std::min(check.buffers[b].view_lower_bound,
                 live_bytes_lower_bound(stated[b].items, kCheckAlignment));
    const uint64_t size = check.buffers[b].size;
    for (const Overlap& o :
         buffer_overlaps(b, size, stated[b].items, stated[b].offsets, stated[b].owners)) {
      if (!may_share(o.value_a, o.value_b)) check.overlaps.push_back(o);
    }
    for (const Overlap& o :
         buffer_overlaps(b, size, viewed[b].items, viewed[b].offsets, viewed[b].owners)) {
      view_reading.push_back(o);
    }
  }
  for (const Overlap& o : view_reading) {
    const bool stated_too =
        std::any_of(check.overlaps.begin(), check.overlaps.end(), [&](const Overlap& f) {
          return std::minmax(f.value_a, f.value_b) == std::minmax(o.value_a, o.value_b);
        });
    if (!stated_too) check.notes.push_back(view_reading_note(o, check, own, plan, aliases.scratch));
  }
  check.device_violations = check_devices(plan);
  std::sort(check.overlaps.begin(), check.overlaps.end(), [](const Overlap& a, const Overlap& b) {
    return std::tie(a.buffer, a.value_a, a.value_b) < std::tie(b.buffer, b.value_a, b.value_b);
  });
  return check;
}

std::string describe_overlap(const Overlap& o) {
  return "values " + std::to_string(o.value_a) + " and " + std::to_string(o.value_b) +
         " in buffer " + std::to_string(o.buffer) + " share bytes [" +
         std::to_string(std::max(o.a_begin, o.b_begin)) + ", " +
         std::to_string(std::min(o.a_end, o.b_end)) + ") during instructions " +
         std::to_string(o.first_step) + ".." + std::to_string(o.last_step) + " (value " +
         std::to_string(o.value_a) + " at [" + std::to_string(o.a_begin) + ", " +
         std::to_string(o.a_end) + "), value " + std::to_string(o.value_b) + " at [" +
         std::to_string(o.b_begin) + ", " + std::to_string(o.b_end) + "))";
}

}  // namespace devplan
