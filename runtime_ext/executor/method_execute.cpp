// Executing a Method (method.h): its chains' instructions in order, each kernel, delegate,
// move, free and jump, after checking that no operator or backend is missing.
#include <runtime_ext/executor/method.h>

#include <algorithm>
#include <cstdint>

namespace devplan {

std::string Method::where(size_t chain, size_t pc) const {
  return "method '" + plan_.name + "': chain " + std::to_string(chain) + " instruction " +
         std::to_string(pc);
}

Error Method::run_step(size_t chain, size_t pc, const Step& step) {
  const InstructionInfo& instruction = *step.instruction;
  Span<EValue*> args(const_cast<EValue**>(step.args.data()), step.args.size());
  if (instruction.kind == InstructionKind::KernelCall ||
      instruction.kind == InstructionKind::DelegateCall) {
    for (int32_t arg : instruction.args) {
      if (arg < 0 || static_cast<size_t>(arg) >= freed_.size()) continue;
      if (freed_[arg]) {
        return Error(ErrorCode::InvalidState, "value " + std::to_string(arg) +
                                                  " is used after a FreeCall released its memory");
      }
      if (unbound_[arg]) {
        return Error(ErrorCode::InvalidState,
                     "value " + std::to_string(arg) + ": runtime-bound tensor on " +
                         values_[arg].tensor.device.to_string() +
                         " has no memory (the caller supplies it: set_input or set_output_data)");
      }
    }
  }
  switch (instruction.kind) {
    case InstructionKind::KernelCall: {
      const std::string op = plan_.operators[instruction.op_index].full_name();
      if (step.kernel == nullptr) {
        return Error(ErrorCode::OperatorMissing, "operator " + op + " has no kernel");
      }
      KernelContext ctx{op, Span<const int32_t>(instruction.args.data(), instruction.args.size()),
                        runtime_.allocators, memory_.temp_allocator()};
      return step.kernel(ctx, args);
    }
    case InstructionKind::DelegateCall: {
      const size_t d = static_cast<size_t>(instruction.delegate_index);
      const std::string& id = plan_.delegates[d].id;
      if (delegate_backends_[d] == nullptr) {
        return Error(
            ErrorCode::OperatorMissing,
            "delegate " + std::to_string(d) + " needs backend " + id + ", which is not registered");
      }
      BackendContext ctx{plan_.name, id,
                         Span<const int32_t>(instruction.args.data(), instruction.args.size()),
                         runtime_.allocators};
      Error err = delegate_backends_[d]->execute(delegate_handles_[d].get(), ctx, args);
      if (!err.ok()) return err.with_context("delegate " + std::to_string(d) + " (" + id + ")");
      return Error::success();
    }
    case InstructionKind::Move:
      values_[instruction.move_to] = values_[instruction.move_from];
      freed_[instruction.move_to] = freed_[instruction.move_from];
      return Error::success();
    case InstructionKind::Free: {
      // As in ExecuTorch, only a Tensor can be freed, and it has no memory afterwards (planned
      // memory is static: nothing goes back to any allocator).
      const EValue& target = values_[instruction.free_value];
      if (!target.is_tensor()) {
        return Error(ErrorCode::InvalidType, "FreeCall target value " +
                                                 std::to_string(instruction.free_value) + " is " +
                                                 value_tag_name(target.tag) + ", not a Tensor");
      }
      freed_[instruction.free_value] = 1;
      return Error::success();
    }
    case InstructionKind::JumpFalse:
      break;  // handled by execute()
  }
  (void)chain;
  (void)pc;
  return Error::success();
}

// A JumpFalse's condition as ExecuTorch reads it: a Bool, or a bool tensor that holds when every
// element is true (torch.cond's predicate).
Result<bool> Method::jump_condition(int32_t index) const {
  const EValue& cond = values_[index];
  const std::string what = "jump condition value " + std::to_string(index);
  if (cond.is_bool()) return cond.bool_value;
  if (!cond.is_tensor()) {
    return Error(ErrorCode::InvalidProgram,
                 what + " is " + value_tag_name(cond.tag) + ", not a Bool or a bool tensor");
  }
  const Tensor& t = cond.tensor;
  if (t.dtype != ScalarType::Bool) {
    return Error(ErrorCode::InvalidProgram,
                 what + " is a " + scalar_type_name(t.dtype) + " tensor, not a bool tensor");
  }
  if (!t.device.is_cpu()) {
    return Error(ErrorCode::NotSupported,
                 what + " is a tensor on " + t.device.to_string() +
                     "; the condition is read on the host (ExecuTorch reads its bytes in place)");
  }
  const int64_t n = t.numel();
  if (n > 0 && t.data == nullptr) return Error(ErrorCode::InvalidState, what + ": no data");
  const uint8_t* bytes = static_cast<const uint8_t*>(t.data);
  for (int64_t i = 0; i < n; ++i) {
    if (bytes[i] == 0) return false;
  }
  return true;
}

std::vector<Method::Missing> Method::missing_steps() const {
  std::vector<Missing> found;
  std::vector<int32_t> seen_ops, seen_delegates;
  for (size_t c = 0; c < chains_.size(); ++c) {
    for (size_t pc = 0; pc < chains_[c].size(); ++pc) {
      const Step& step = chains_[c][pc];
      const InstructionInfo& instruction = *step.instruction;
      if (instruction.kind == InstructionKind::KernelCall && step.kernel == nullptr &&
          std::find(seen_ops.begin(), seen_ops.end(), instruction.op_index) == seen_ops.end()) {
        seen_ops.push_back(instruction.op_index);
        found.push_back({c, pc, false, plan_.operators[instruction.op_index].full_name()});
      } else if (instruction.kind == InstructionKind::DelegateCall &&
                 delegate_backends_[instruction.delegate_index] == nullptr &&
                 std::find(seen_delegates.begin(), seen_delegates.end(),
                           instruction.delegate_index) == seen_delegates.end()) {
        seen_delegates.push_back(instruction.delegate_index);
        found.push_back({c, pc, true, plan_.delegates[instruction.delegate_index].id});
      }
    }
  }
  return found;
}

std::vector<std::string> Method::missing() const {
  std::vector<std::string> names;
  for (const Missing& m : missing_steps()) {
    const std::string name = (m.backend ? "backend " : "kernel ") + m.name;
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return names;
}

std::vector<std::string> Method::missing_kernels() const {
  std::vector<std::string> names;
  for (const Missing& m : missing_steps()) {
    if (!m.backend && std::find(names.begin(), names.end(), m.name) == names.end()) {
      names.push_back(m.name);
    }
  }
  return names;
}

std::vector<std::string> Method::missing_backends() const {
  std::vector<std::string> names;
  for (const Missing& m : missing_steps()) {
    if (m.backend && std::find(names.begin(), names.end(), m.name) == names.end()) {
      names.push_back(m.name);
    }
  }
  return names;
}

Error Method::check_runnable() const {
  // As ExecuTorch refuses to load such a method: nothing runs, and every missing operator and
  // backend is named once, at its first instruction.
  std::string message;
  for (const Missing& m : missing_steps()) {
    const InstructionInfo& instruction = *chains_[m.chain][m.pc].instruction;
    const std::string what = m.backend
                                 ? "delegate " + std::to_string(instruction.delegate_index) +
                                       " needs backend " + m.name + ", which is not registered"
                                 : "operator " + m.name + " has no kernel";
    message += message.empty() ? where(m.chain, m.pc) + ": " + what
                               : "; " + what + " (chain " + std::to_string(m.chain) +
                                     " instruction " + std::to_string(m.pc) + ")";
  }
  if (message.empty()) return Error::success();
  return Error(ErrorCode::OperatorMissing, message);
}

Error Method::execute() {
  DEVPLAN_RETURN_IF_ERROR(check_runnable());
  uint64_t steps_run = 0;
  freed_.assign(values_.size(), 0);
  for (size_t c = 0; c < chains_.size(); ++c) {
    const std::vector<Step>& steps = chains_[c];
    size_t pc = 0;
    while (pc < steps.size()) {
      if (++steps_run > runtime_.max_steps) {
        return Error(ErrorCode::InvalidState, where(c, pc) + ": more than " +
                                                  std::to_string(runtime_.max_steps) +
                                                  " instructions executed; the chain does not end");
      }
      const InstructionInfo& instruction = *steps[pc].instruction;
      if (instruction.kind == InstructionKind::JumpFalse) {
        Result<bool> go_on = jump_condition(instruction.cond_value);
        if (!go_on.ok()) return go_on.error().with_context(where(c, pc));
        // A destination at or past the chain's end (or negative, as ExecuTorch's size_t
        // conversion reads it) ends the chain.
        pc = *go_on ? pc + 1 : static_cast<size_t>(instruction.destination);
        continue;
      }
      Error err = run_step(c, pc, steps[pc]);
      if (!err.ok()) return err.with_context(where(c, pc));
      ++pc;
    }
  }
  return Error::success();
}

std::vector<std::string> Method::missing_operators() const {
  std::vector<std::string> missing;
  for (const auto& steps : chains_) {
    for (const Step& step : steps) {
      if (step.instruction->kind == InstructionKind::KernelCall && step.kernel == nullptr) {
        missing.push_back(plan_.operators[step.instruction->op_index].full_name());
      }
    }
  }
  for (size_t d = 0; d < delegate_backends_.size(); ++d) {
    if (delegate_backends_[d] == nullptr) missing.push_back("delegate " + plan_.delegates[d].id);
  }
  return missing;
}

}  // namespace devplan
