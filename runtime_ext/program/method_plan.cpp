#include <runtime_ext/program/method_plan.h>

namespace devplan {

const char* value_tag_name(ValueTag tag) {
  switch (tag) {
    case ValueTag::None:
      return "None";
    case ValueTag::Null:
      return "Null";
    case ValueTag::Int:
      return "Int";
    case ValueTag::Bool:
      return "Bool";
    case ValueTag::Double:
      return "Double";
    case ValueTag::Tensor:
      return "Tensor";
    case ValueTag::String:
      return "String";
    case ValueTag::IntList:
      return "IntList";
    case ValueTag::DoubleList:
      return "DoubleList";
    case ValueTag::BoolList:
      return "BoolList";
    case ValueTag::TensorList:
      return "TensorList";
    case ValueTag::OptionalTensorList:
      return "OptionalTensorList";
  }
  return "Unknown";
}

const char* instruction_kind_name(InstructionKind kind) {
  switch (kind) {
    case InstructionKind::KernelCall:
      return "KernelCall";
    case InstructionKind::DelegateCall:
      return "DelegateCall";
    case InstructionKind::Move:
      return "Move";
    case InstructionKind::JumpFalse:
      return "JumpFalse";
    case InstructionKind::Free:
      return "Free";
  }
  return "Unknown";
}

}  // namespace devplan
