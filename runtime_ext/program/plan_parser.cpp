// The method walk of PlanParser (plan_parser_impl.h): inputs, outputs, operators, delegates,
// chains and instructions; and the entry points of plan_parser.h.
#include <runtime_ext/program/plan_parser.h>
#include <runtime_ext/program/plan_parser_impl.h>

#include <utility>

namespace devplan::internal {
namespace {

namespace fb = devplan_flatbuffer;

}  // namespace

std::string PlanParser::count(size_t n, const std::string& singular, const std::string& plural) {
  if (n == 1) return "1 " + singular;
  return std::to_string(n) + " " + (plural.empty() ? singular + "s" : plural);
}

Result<MethodPlan> PlanParser::parse() {
  if (plan_->name() == nullptr) return invalid("has no name");
  out_.name = plan_->name()->str();
  DEVPLAN_RETURN_IF_ERROR(parse_buffers());
  DEVPLAN_RETURN_IF_ERROR(parse_buffer_devices());
  DEVPLAN_RETURN_IF_ERROR(parse_values());
  DEVPLAN_RETURN_IF_ERROR(parse_value_indices("input", plan_->inputs(), &out_.inputs));
  DEVPLAN_RETURN_IF_ERROR(parse_value_indices("output", plan_->outputs(), &out_.outputs));
  DEVPLAN_RETURN_IF_ERROR(parse_operators());
  DEVPLAN_RETURN_IF_ERROR(parse_delegates());
  DEVPLAN_RETURN_IF_ERROR(parse_chains());
  if (notes_left_out_ > 0) {
    out_.notes.push_back("... and " + count(notes_left_out_, "more note") + " of these kinds");
  }
  return std::move(out_);
}

void PlanParser::note(std::string text) {
  if (out_.notes.size() < kMaxNotes) {
    out_.notes.push_back(std::move(text));
  } else {
    ++notes_left_out_;
  }
}

Error PlanParser::invalid(const std::string& message) const {
  return Error(ErrorCode::InvalidProgram, label_ + ": " + message);
}

// "value index 9 is out of range (6 values)" or "".
std::string PlanParser::check_value_index(int64_t index) const {
  if (index < 0 || static_cast<uint64_t>(index) >= num_values_) {
    return "value index " + std::to_string(index) + " is out of range (" +
           count(num_values_, "value") + ")";
  }
  return "";
}

Error PlanParser::parse_value_indices(const char* what, const FbVector<int32_t>* list,
                                      std::vector<int32_t>* out) {
  if (list == nullptr) return Error::success();
  for (flatbuffers::uoffset_t k = 0; k < list->size(); ++k) {
    const int32_t index = list->Get(k);
    const std::string range = check_value_index(index);
    if (!range.empty()) return invalid(std::string(what) + " " + std::to_string(k) + ": " + range);
    out->push_back(index);
  }
  return Error::success();
}

void PlanParser::read_chain_values(const std::string& where, const FbVector<int32_t>* list,
                                   std::vector<int32_t>* out) {
  // ExecuTorch never reads a chain's inputs and outputs: kept as written (a rewritten program
  // keeps them), and noted where they name no value.
  for (size_t k = 0; k < size_of(list); ++k) {
    const int32_t index = list->Get(static_cast<flatbuffers::uoffset_t>(k));
    const std::string range = check_value_index(index);
    if (!range.empty()) {
      note(where + std::to_string(k) + ": " + range + " (never read)");
    }
    out->push_back(index);
  }
}

Error PlanParser::parse_operators() {
  const auto* ops = plan_->operators();
  for (size_t k = 0; k < size_of(ops); ++k) {
    const fb::Operator* op = ops->Get(static_cast<flatbuffers::uoffset_t>(k));
    const std::string where = "operator " + std::to_string(k) + ": ";
    if (op == nullptr) return invalid(where + "missing");
    OperatorInfo info;
    if (op->name() == nullptr) {
      // ExecuTorch reads an operator's name only to resolve a kernel an instruction calls.
      nameless_operator_.resize(size_of(ops), false);
      nameless_operator_[k] = true;
      note(where + "has no name (no instruction may call it)");
    } else {
      info.name = op->name()->str();
    }
    if (op->overload() != nullptr) info.overload = op->overload()->str();
    out_.operators.push_back(std::move(info));
  }
  return Error::success();
}

Error PlanParser::parse_delegates() {
  const auto* delegates = plan_->delegates();
  for (size_t k = 0; k < size_of(delegates); ++k) {
    const fb::BackendDelegate* d = delegates->Get(static_cast<flatbuffers::uoffset_t>(k));
    const std::string where = "delegate " + std::to_string(k) + ": ";
    if (d == nullptr) return invalid(where + "missing");
    if (d->id() == nullptr) return invalid(where + "has no backend id");
    DelegateInfo info;
    info.id = d->id()->str();
    const fb::BackendDelegateDataReference* ref = d->processed();
    if (ref == nullptr) return invalid(where + "has no processed data reference");
    const int location = static_cast<int>(ref->location());
    const uint32_t index = ref->index();
    if (location == static_cast<int>(fb::DataLocation::INLINE)) {
      const auto* inline_data = ctx_.program->backend_delegate_data();
      const size_t n = size_of(inline_data);
      if (index >= n) {
        return invalid(where + "inline data index " + std::to_string(index) +
                       " is out of range (the program has " +
                       count(n, "backend_delegate_data entry", "backend_delegate_data entries") +
                       ")");
      }
      const fb::BackendDelegateInlineData* data = inline_data->Get(index);
      const auto* bytes = data == nullptr ? nullptr : data->data();
      if (bytes != nullptr) info.processed = Span<const uint8_t>(bytes->data(), bytes->size());
    } else if (location == static_cast<int>(fb::DataLocation::SEGMENT)) {
      if (index >= ctx_.segments.size()) {
        return invalid(where + "segment index " + std::to_string(index) +
                       " is out of range (the program has " +
                       count(ctx_.segments.size(), "segment") + ")");
      }
      if (!ctx_.has_segment_data) {
        return invalid(where + "segment " + std::to_string(index) +
                       ": the file has no segment data (no extended header, or a "
                       "segment_base_offset of 0)");
      }
      if (!ctx_.segment_errors[index].empty()) return invalid(where + ctx_.segment_errors[index]);
      info.processed = ctx_.segments[index];
    } else {
      return invalid(where + "unknown data location " + std::to_string(location));
    }
    const auto* specs = d->compile_specs();
    for (size_t s = 0; s < size_of(specs); ++s) {
      const fb::CompileSpec* spec = specs->Get(static_cast<flatbuffers::uoffset_t>(s));
      if (spec == nullptr) {
        return invalid(where + "compile spec " + std::to_string(s) + " is missing");
      }
      CompileSpecInfo cs;
      if (spec->key() != nullptr) cs.key = spec->key()->str();
      if (spec->value() != nullptr) {
        cs.value = Span<const uint8_t>(spec->value()->data(), spec->value()->size());
      }
      info.compile_specs.push_back(std::move(cs));
    }
    out_.delegates.push_back(std::move(info));
  }
  return Error::success();
}

Error PlanParser::parse_chains() {
  const auto* chains = plan_->chains();
  // As ExecuTorch's Method::init: a method has at least one chain (its exporter always
  // writes one, empty when there is nothing to run).
  if (size_of(chains) == 0) return invalid("no chains (a method needs at least one)");
  for (size_t c = 0; c < size_of(chains); ++c) {
    const fb::Chain* chain = chains->Get(static_cast<flatbuffers::uoffset_t>(c));
    const std::string where = "chain " + std::to_string(c);
    if (chain == nullptr) return invalid(where + ": missing");
    ChainInfo info;
    read_chain_values(where + ": input ", chain->inputs(), &info.inputs);
    read_chain_values(where + ": output ", chain->outputs(), &info.outputs);
    const auto* instructions = chain->instructions();
    const size_t n = size_of(instructions);
    for (size_t i = 0; i < n; ++i) {
      const fb::Instruction* instruction =
          instructions->Get(static_cast<flatbuffers::uoffset_t>(i));
      const std::string iw = where + ", instruction " + std::to_string(i) + ": ";
      if (instruction == nullptr) return invalid(iw + "missing");
      InstructionInfo ins;
      DEVPLAN_RETURN_IF_ERROR(parse_instruction(*instruction, iw, &ins));
      info.instructions.push_back(std::move(ins));
    }
    out_.chains.push_back(std::move(info));
  }
  return Error::success();
}

Error PlanParser::check_value_arg(const std::string& where, const char* field,
                                  int32_t index) const {
  const std::string range = check_value_index(index);
  if (!range.empty()) return invalid(where + field + ": " + range);
  return Error::success();
}

Error PlanParser::parse_args(const FbVector<int32_t>* args, const std::string& where,
                             InstructionInfo* out) {
  if (args == nullptr) return Error::success();
  for (flatbuffers::uoffset_t k = 0; k < args->size(); ++k) {
    const int32_t index = args->Get(k);
    const std::string range = check_value_index(index);
    if (!range.empty()) return invalid(where + "argument " + std::to_string(k) + ": " + range);
    out->args.push_back(index);
  }
  return Error::success();
}

Error PlanParser::parse_instruction(const fb::Instruction& instruction, const std::string& where,
                                    InstructionInfo* out) {
  using IA = fb::InstructionArguments;
  const IA type = instruction.instr_args_type();
  switch (type) {
    case IA::NONE:
      return invalid(where + "has no arguments (instruction type NONE)");
    case IA::KernelCall: {
      out->kind = InstructionKind::KernelCall;
      const fb::KernelCall* call = instruction.instr_args_as_KernelCall();
      if (call == nullptr) return invalid(where + "KernelCall has no table");
      out->op_index = call->op_index();
      if (out->op_index < 0 || static_cast<size_t>(out->op_index) >= out_.operators.size()) {
        return invalid(where + "op_index " + std::to_string(out->op_index) + " is out of range (" +
                       count(out_.operators.size(), "operator") + ")");
      }
      const size_t op = static_cast<size_t>(out->op_index);
      if (op < nameless_operator_.size() && nameless_operator_[op]) {
        return invalid(where + "calls operator " + std::to_string(op) + ", which has no name");
      }
      return parse_args(call->args(), where, out);
    }
    case IA::DelegateCall: {
      out->kind = InstructionKind::DelegateCall;
      const fb::DelegateCall* call = instruction.instr_args_as_DelegateCall();
      if (call == nullptr) return invalid(where + "DelegateCall has no table");
      out->delegate_index = call->delegate_index();
      if (out->delegate_index < 0 ||
          static_cast<size_t>(out->delegate_index) >= out_.delegates.size()) {
        return invalid(where + "delegate_index " + std::to_string(out->delegate_index) +
                       " is out of range (" + count(out_.delegates.size(), "delegate") + ")");
      }
      return parse_args(call->args(), where, out);
    }
    case IA::MoveCall: {
      out->kind = InstructionKind::Move;
      const fb::MoveCall* call = instruction.instr_args_as_MoveCall();
      if (call == nullptr) return invalid(where + "MoveCall has no table");
      out->move_from = call->move_from();
      out->move_to = call->move_to();
      DEVPLAN_RETURN_IF_ERROR(check_value_arg(where, "move_from", out->move_from));
      return check_value_arg(where, "move_to", out->move_to);
    }
    case IA::JumpFalseCall: {
      out->kind = InstructionKind::JumpFalse;
      const fb::JumpFalseCall* call = instruction.instr_args_as_JumpFalseCall();
      if (call == nullptr) return invalid(where + "JumpFalseCall has no table");
      out->cond_value = call->cond_value_index();
      out->destination = call->destination_instruction();
      // As ExecuTorch: the condition (a Bool, or a bool tensor as torch.cond's predicate) is
      // checked when the jump runs, and a destination past the chain's end ends the chain (the
      // exporter writes the chain's length when a cond is its last instruction).
      return check_value_arg(where, "cond_value_index", out->cond_value);
    }
    case IA::FreeCall: {
      out->kind = InstructionKind::Free;
      const fb::FreeCall* call = instruction.instr_args_as_FreeCall();
      if (call == nullptr) return invalid(where + "FreeCall has no table");
      out->free_value = call->value_index();
      return check_value_arg(where, "value_index", out->free_value);
    }
  }
  return invalid(where + "unknown instruction type " + std::to_string(static_cast<int>(type)));
}

std::string method_label(const devplan_flatbuffer::ExecutionPlan* plan, size_t index) {
  if (plan == nullptr || plan->name() == nullptr) return "method " + std::to_string(index);
  return "method '" + plan->name()->str() + "'";
}

Result<MethodPlan> parse_method_plan(const ProgramContext& context,
                                     const devplan_flatbuffer::ExecutionPlan* plan, size_t index) {
  if (plan == nullptr) {
    return Error(ErrorCode::InvalidProgram, method_label(plan, index) + ": missing");
  }
  return PlanParser(context, plan, index).parse();
}

}  // namespace devplan::internal
