#include <harness/commands/plan_check.h>

#include <algorithm>
#include <tuple>

#include <runtime_ext/planning/offset_planner.h>
#include <runtime_ext/planning/plan_verifier.h>

namespace devplan::harness {
namespace {

constexpr uint64_t kCheckAlignment = 16;

void touch(std::vector<ValueLifetime>& life, int32_t value, int32_t step) {
  ValueLifetime& l = life[value];
  if (l.first < 0 || step < l.first) l.first = step;
  l.last = std::max(l.last, step);
}

// Marks `value` and, for tensor lists, the values it lists.
void name_value(const MethodPlan& plan, std::vector<ValueLifetime>& life, int32_t value, int32_t step) {
  touch(life, value, step);
  const ValueInfo& v = plan.values[value];
  if (v.tag == ValueTag::TensorList || v.tag == ValueTag::OptionalTensorList) {
    for (int32_t item : v.value_list) touch(life, item, step);
  }
}

}  // namespace

std::vector<ValueLifetime> value_lifetimes(const MethodPlan& plan, int32_t* num_steps) {
  std::vector<ValueLifetime> life(plan.values.size());
  int32_t step = 0;
  for (const ChainInfo& chain : plan.chains) {
    for (const InstructionInfo& ins : chain.instructions) {
      switch (ins.kind) {
        case InstructionKind::KernelCall:
        case InstructionKind::DelegateCall:
          for (int32_t arg : ins.args) name_value(plan, life, arg, step);
          break;
        case InstructionKind::Move:
          name_value(plan, life, ins.move_from, step);
          name_value(plan, life, ins.move_to, step);
          break;
        case InstructionKind::JumpFalse:
          name_value(plan, life, ins.cond_value, step);
          break;
        case InstructionKind::Free:
          name_value(plan, life, ins.free_value, step);
          break;
      }
      ++step;
    }
  }
  const int32_t last = std::max(step, 1) - 1;
  for (int32_t input : plan.inputs) {
    life[input].first = 0;
    life[input].last = std::max(life[input].last, 0);
  }
  for (int32_t output : plan.outputs) {
    if (life[output].first < 0) life[output].first = 0;
    life[output].last = last;
  }
  *num_steps = last + 1;
  return life;
}

MethodCheck check_method_plan(const MethodPlan& plan) {
  MethodCheck check;
  check.name = plan.name;
  check.lifetimes = value_lifetimes(plan, &check.num_steps);
  const size_t num_buffers = plan.buffer_sizes.size();
  std::vector<std::vector<PlanItem>> items(num_buffers);
  std::vector<std::vector<uint64_t>> offsets(num_buffers);
  std::vector<std::vector<int32_t>> owners(num_buffers);
  for (size_t b = 0; b < num_buffers; ++b) {
    BufferCheck buffer;
    buffer.index = b;
    buffer.device = plan.buffer_devices[b];
    buffer.size = plan.buffer_sizes[b];
    check.buffers.push_back(buffer);
  }
  for (size_t v = 0; v < plan.values.size(); ++v) {
    const ValueInfo& value = plan.values[v];
    if (value.tag != ValueTag::Tensor || !value.tensor.is_planned()) continue;
    const uint32_t b = value.tensor.buffer_index;
    ++check.buffers[b].planned_tensors;
    const ValueLifetime& l = check.lifetimes[v];
    if (l.first < 0 || value.tensor.nbytes == 0) continue;
    items[b].push_back(PlanItem{value.tensor.nbytes, l.first, l.last});
    offsets[b].push_back(value.tensor.offset);
    owners[b].push_back(static_cast<int32_t>(v));
  }
  for (size_t b = 0; b < num_buffers; ++b) {
    check.buffers[b].lower_bound = live_bytes_lower_bound(items[b], kCheckAlignment);
    // Alignment 1: a misaligned offset is not an overlap, and placement is the loader's check.
    for (const PlanViolation& v : verify_offsets(items[b], offsets[b], check.buffers[b].size, 1)) {
      if (v.kind != PlanViolationKind::Overlap) continue;
      size_t x = static_cast<size_t>(v.tensor), y = static_cast<size_t>(v.other);
      if (items[b][y].first < items[b][x].first ||
          (items[b][y].first == items[b][x].first && owners[b][y] < owners[b][x])) {
        std::swap(x, y);
      }
      Overlap o;
      o.buffer = b;
      o.value_a = owners[b][x];
      o.value_b = owners[b][y];
      o.a_begin = offsets[b][x];
      o.a_end = offsets[b][x] + items[b][x].size;
      o.b_begin = offsets[b][y];
      o.b_end = offsets[b][y] + items[b][y].size;
      o.first_step = std::max(items[b][x].first, items[b][y].first);
      o.last_step = std::min(items[b][x].last, items[b][y].last);
      check.overlaps.push_back(o);
    }
  }
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

}  // namespace devplan::harness
