// The write facts of a method (plan_write_facts.h): which values are written, when first, and
// which are read before anything writes them.
#include <runtime_ext/analysis/plan_write_facts.h>

#include <algorithm>
#include <cstddef>

namespace devplan::internal {
namespace {

// How many trailing args of an out-variant KernelCall are its returns: they repeat out
// arguments named earlier in the list (aten::add.out: [self, other, alpha, out, out] -> 1). At
// least 1: a call whose last arg repeats nothing returns that arg.
size_t returned_args(const InstructionInfo& ins) {
  const size_t n = ins.args.size();
  size_t returned = 0;
  while (returned < n / 2) {
    const int32_t arg = ins.args[n - 1 - returned];
    const auto head_end = ins.args.begin() + static_cast<std::ptrdiff_t>(n - 1 - returned);
    if (std::find(ins.args.begin(), head_end, arg) == head_end) break;
    ++returned;
  }
  return std::max<size_t>(returned, 1);
}

}  // namespace

WriteFacts write_facts(const MethodPlan& plan) {
  const size_t n = plan.values.size();
  WriteFacts facts{std::vector<bool>(n, false), std::vector<bool>(n, false),
                   std::vector<int32_t>(n, WriteFacts::kNever), std::vector<int32_t>(n, -1)};
  std::vector<bool> named(n, false);
  auto written_before_start = [&](size_t v) {
    facts.written[v] = named[v] = true;
    facts.first_write[v] = WriteFacts::kBeforeFirstStep;
  };
  for (int32_t input : plan.inputs) written_before_start(static_cast<size_t>(input));
  for (size_t v = 0; v < n; ++v) {
    const ValueInfo& value = plan.values[v];
    if (value.tag == ValueTag::Tensor &&
        value.tensor.storage == TensorStorage::PlannedWithInitial) {
      written_before_start(v);
    }
  }
  int32_t step = 0;
  auto use = [&](int32_t value, bool writes) {
    if (!named[value]) facts.read_first[value] = !writes;
    named[value] = true;
    if (writes && !facts.written[value]) {
      facts.written[value] = true;
      facts.first_write[value] = step;
    }
    if (writes) return;
    facts.last_read[value] = step;
    const ValueInfo& v = plan.values[value];
    if (v.tag != ValueTag::TensorList && v.tag != ValueTag::OptionalTensorList) return;
    for (int32_t item : v.value_list) {
      if (item != kNoneListItem) facts.last_read[item] = step;
    }
  };
  for (const ChainInfo& chain : plan.chains) {
    for (const InstructionInfo& ins : chain.instructions) {
      switch (ins.kind) {
        case InstructionKind::KernelCall: {
          if (ins.args.empty()) break;
          const size_t first_return = ins.args.size() - returned_args(ins);
          std::vector<int32_t> returns(ins.args.begin() + static_cast<std::ptrdiff_t>(first_return),
                                       ins.args.end());
          // A returned tensor list (native_layer_norm.out returns (out, mean, rstd)) writes
          // its items, which are also its out arguments.
          for (size_t r = 0, n = returns.size(); r < n; ++r) {
            const ValueInfo& returned = plan.values[returns[r]];
            if (returned.tag == ValueTag::TensorList ||
                returned.tag == ValueTag::OptionalTensorList) {
              for (int32_t item : returned.value_list) {
                if (item != kNoneListItem) returns.push_back(item);
              }
            }
          }
          for (int32_t arg : ins.args) {
            use(arg, std::find(returns.begin(), returns.end(), arg) != returns.end());
          }
          break;
        }
        case InstructionKind::DelegateCall:
          // Inputs then outputs, with no count in the file: an arg it names first, it writes.
          for (int32_t arg : ins.args) use(arg, !named[arg]);
          break;
        case InstructionKind::Move:
          use(ins.move_from, false);
          use(ins.move_to, true);
          break;
        case InstructionKind::JumpFalse:
          use(ins.cond_value, false);
          break;
        case InstructionKind::Free:
          break;
      }
      ++step;
    }
  }
  // A tensor read before it is written holds state from the previous execution (a mutable
  // buffer): it holds its bytes from the start.
  for (size_t v = 0; v < n; ++v) {
    if (facts.read_first[v] && facts.written[v])
      facts.first_write[v] = WriteFacts::kBeforeFirstStep;
  }
  return facts;
}

}  // namespace devplan::internal
