#include <runtime_ext/executor/method.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <new>

namespace devplan {
namespace {

std::string value_name(size_t index) { return "value " + std::to_string(index); }

// Kernels read a tensor as an array of its element type, so its address must be a multiple of
// the element size (a misaligned typed read is undefined behaviour). InvalidProgram otherwise.
Error check_tensor_alignment(size_t index, const TensorInfo& info, const void* data) {
  const size_t elem = element_size(info.dtype);
  if (info.nbytes == 0 || elem <= 1 || reinterpret_cast<uintptr_t>(data) % elem == 0) {
    return Error::success();
  }
  const std::string where = info.storage == TensorStorage::Constant
                                ? "constant data"
                                : "planned at offset " + std::to_string(info.offset) +
                                      " of buffer " + std::to_string(info.buffer_index);
  return Error(ErrorCode::InvalidProgram,
               value_name(index) + ": " + scalar_type_name(info.dtype) + " tensor " + where +
                   " is not aligned to its element size " + std::to_string(elem));
}

// ExecuTorch's Method::set_input takes a primitive input only when it equals the value the
// program records: Int, Bool and String exactly, a Double within 1e-4 + 1e-5 * |recorded| (NaN
// equals NaN, an infinity the infinity of its sign). Other tags cannot be set at all.
bool same_primitive(const EValue& recorded, const EValue& given) {
  switch (recorded.tag) {
    case ValueTag::Int:
      return given.int_value == recorded.int_value;
    case ValueTag::Bool:
      return given.bool_value == recorded.bool_value;
    case ValueTag::String:
      return given.string_value == recorded.string_value;
    case ValueTag::Double: {
      const double a = given.double_value, b = recorded.double_value;
      if (std::isnan(a) && std::isnan(b)) return true;
      if (!std::isfinite(a) && !std::isfinite(b) && (a > 0) == (b > 0)) return true;
      const double error = std::abs(a - b);
      return std::isfinite(error) && error <= 1e-4 + std::abs(1e-5 * b);
    }
    default:
      return false;
  }
}

std::string primitive_text(const EValue& v) {
  switch (v.tag) {
    case ValueTag::Int:
      return std::to_string(v.int_value);
    case ValueTag::Bool:
      return v.bool_value ? "true" : "false";
    case ValueTag::String:
      return "'" + v.string_value + "'";
    case ValueTag::Double: {
      char text[32];
      std::snprintf(text, sizeof(text), "%.17g", v.double_value);
      return text;
    }
    default:
      return value_tag_name(v.tag);
  }
}

}  // namespace

Result<std::unique_ptr<Method>> Method::load(const MethodPlan& plan, const MemoryManager& memory,
                                             const MethodRuntime& runtime) {
  std::unique_ptr<Method> method(new (std::nothrow) Method(plan, memory, runtime));
  if (!method) return Error(ErrorCode::MemoryAllocationFailed, "no memory for method " + plan.name);
  Error err = method->init();
  if (!err.ok()) return err.with_context("method '" + plan.name + "'");
  return method;
}

Method::~Method() = default;

Error Method::init() {
  const size_t num_buffers = plan_.buffer_sizes.size();
  if (memory_.num_planned_buffers() != num_buffers) {
    return Error(ErrorCode::InvalidArgument,
                 "planned memory has " + std::to_string(memory_.num_planned_buffers()) +
                     " buffers but the method plans " + std::to_string(num_buffers));
  }
  for (size_t b = 0; b < num_buffers; ++b) {
    if (memory_.planned_buffer_device(b) != plan_.buffer_devices[b]) {
      return Error(ErrorCode::InvalidArgument, "planned buffer " + std::to_string(b) + " is on " +
                                                   memory_.planned_buffer_device(b).to_string() +
                                                   " but the program places it on " +
                                                   plan_.buffer_devices[b].to_string());
    }
  }
  values_.resize(plan_.values.size());
  unbound_.assign(plan_.values.size(), 0);
  for (size_t i = 0; i < plan_.values.size(); ++i) DEVPLAN_RETURN_IF_ERROR(init_value(i));
  DEVPLAN_RETURN_IF_ERROR(init_delegates());
  return init_steps();
}

Error Method::init_value(size_t index) {
  const ValueInfo& info = plan_.values[index];
  EValue& v = values_[index];
  v.tag = info.tag;
  switch (info.tag) {
    case ValueTag::Int:
      v.int_value = info.int_value;
      break;
    case ValueTag::Bool:
      v.bool_value = info.bool_value;
      break;
    case ValueTag::Double:
      v.double_value = info.double_value;
      break;
    case ValueTag::String:
      v.string_value = info.string_value;
      break;
    case ValueTag::IntList:
      v.int_list = info.int_list;
      break;
    case ValueTag::DoubleList:
      v.double_list = info.double_list;
      break;
    case ValueTag::BoolList:
      v.bool_list = info.bool_list;
      break;
    case ValueTag::TensorList:
    case ValueTag::OptionalTensorList:
      v.value_list = info.value_list;
      break;
    case ValueTag::Tensor:
      return init_tensor(index, info.tensor, &v.tensor);
    case ValueTag::None:
    case ValueTag::Null:
      break;
  }
  return Error::success();
}

Error Method::init_tensor(size_t index, const TensorInfo& info, Tensor* out) {
  out->dtype = info.dtype;
  out->sizes = info.sizes;
  out->nbytes = info.nbytes;
  out->device = info.memory_device();
  switch (info.storage) {
    case TensorStorage::Constant:
      // Constants are read-only program bytes; kernels only write their out tensors.
      out->data = const_cast<uint8_t*>(info.data.data());
      return check_tensor_alignment(index, info, out->data);
    case TensorStorage::RuntimeBound: {
      if (!info.device.is_cpu()) {
        // The caller supplies its device memory (skip-copy inputs and outputs).
        if (info.nbytes > 0) unbound_[index] = 1;
        return Error::success();
      }
      if (info.nbytes > runtime_.max_runtime_bound_bytes - runtime_bound_bytes_) {
        return Error(ErrorCode::MemoryAllocationFailed,
                     value_name(index) + ": " + std::to_string(info.nbytes) +
                         " bytes for a runtime-bound tensor exceed the method's limit of " +
                         std::to_string(runtime_.max_runtime_bound_bytes));
      }
      if (info.nbytes == 0) return Error::success();
      const uint64_t words = (info.nbytes + 7) / 8;
      std::unique_ptr<uint64_t[]> storage(new (std::nothrow) uint64_t[words]());
      if (!storage) {
        return Error(
            ErrorCode::MemoryAllocationFailed,
            value_name(index) + ": no host memory for " + std::to_string(info.nbytes) + " bytes");
      }
      runtime_bound_bytes_ += info.nbytes;
      out->data = storage.get();
      runtime_bound_storage_.push_back(std::move(storage));
      return Error::success();
    }
    case TensorStorage::External:
      DEVPLAN_RETURN_IF_ERROR(external_data(index, info, out));
      return check_tensor_alignment(index, info, out->data);
    case TensorStorage::Planned:
    case TensorStorage::PlannedWithInitial:
      break;
  }
  HierarchicalAllocator* planned = memory_.planned_memory();
  if (planned == nullptr) {
    return Error(ErrorCode::InvalidState,
                 value_name(index) + ": planned tensor but no planned memory");
  }
  const Device buffer_device = memory_.planned_buffer_device(info.buffer_index);
  if (info.buffer_index >= memory_.num_planned_buffers() || buffer_device != info.memory_device()) {
    return Error(ErrorCode::InvalidProgram, value_name(index) + ": tensor on " +
                                                info.device.to_string() + " planned in buffer " +
                                                std::to_string(info.buffer_index) + " on " +
                                                buffer_device.to_string());
  }
  Result<void*> address = planned->get_offset_address(info.buffer_index, info.offset, info.nbytes);
  if (!address.ok()) {
    return Error(ErrorCode::InvalidProgram, value_name(index) + ": " + address.error().message());
  }
  out->data = *address;
  DEVPLAN_RETURN_IF_ERROR(check_tensor_alignment(index, info, out->data));
  if (info.storage != TensorStorage::PlannedWithInitial || info.nbytes == 0) {
    return Error::success();
  }
  if (info.data.size() < info.nbytes) {
    return Error(ErrorCode::InvalidProgram, value_name(index) + ": initial value has " +
                                                std::to_string(info.data.size()) +
                                                " bytes, needs " + std::to_string(info.nbytes));
  }
  if (info.memory_device().is_cpu()) {
    std::memcpy(out->data, info.data.data(), info.nbytes);
    return Error::success();
  }
  const Device memory = info.memory_device();
  DeviceAllocator* allocator = runtime_.allocators->get(memory.type);
  if (allocator == nullptr) {
    return Error(ErrorCode::NotFound,
                 value_name(index) + ": no device allocator registered for " + memory.to_string());
  }
  Error err =
      allocator->copy_host_to_device(out->data, info.data.data(), info.nbytes, memory.index);
  if (!err.ok()) return err.with_context(value_name(index) + ": copying its initial value");
  return Error::success();
}

Error Method::init_delegates() {
  delegate_backends_.assign(plan_.delegates.size(), nullptr);
  delegate_handles_.resize(plan_.delegates.size());
  for (size_t d = 0; d < plan_.delegates.size(); ++d) {
    const DelegateInfo& delegate = plan_.delegates[d];
    Backend* backend = runtime_.backends->find(delegate.id);
    if (backend == nullptr) continue;  // reported as OperatorMissing when executed
    BackendContext ctx{plan_.name, delegate.id, {}, runtime_.allocators};
    Result<std::unique_ptr<DelegateHandle>> handle = backend->init(delegate, ctx);
    if (!handle.ok()) {
      return handle.error().with_context("delegate " + std::to_string(d) + " (backend " +
                                         delegate.id + ")");
    }
    delegate_backends_[d] = backend;
    delegate_handles_[d] = std::move(handle).value();
  }
  return Error::success();
}

Error Method::init_steps() {
  chains_.resize(plan_.chains.size());
  for (size_t c = 0; c < plan_.chains.size(); ++c) {
    const ChainInfo& chain = plan_.chains[c];
    std::vector<Step>& steps = chains_[c];
    steps.resize(chain.instructions.size());
    for (size_t pc = 0; pc < chain.instructions.size(); ++pc) {
      const InstructionInfo& instruction = chain.instructions[pc];
      Step& step = steps[pc];
      step.instruction = &instruction;
      if (instruction.kind == InstructionKind::KernelCall) {
        step.kernel = runtime_.kernels->find(plan_.operators[instruction.op_index].full_name());
      }
      step.args.reserve(instruction.args.size());
      for (int32_t arg : instruction.args) step.args.push_back(&values_[arg]);
    }
  }
  return Error::success();
}

Error Method::external_data(size_t index, const TensorInfo& info, Tensor* out) const {
  Result<ExternalTensorData> found = resolve_external_tensor(runtime_.data_files, info);
  if (!found.ok()) return found.error().with_context(value_name(index));
  out->data = const_cast<uint8_t*>(found->data.data());  // read-only, as a constant
  return Error::success();
}

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

Error Method::set_input(size_t i, const EValue& input) {
  const std::string name = "method '" + plan_.name + "': input " + std::to_string(i);
  if (i >= plan_.inputs.size()) {
    return Error(ErrorCode::InvalidArgument,
                 name + " does not exist (" + std::to_string(plan_.inputs.size()) + " inputs)");
  }
  EValue& target = values_[plan_.inputs[i]];
  if (!target.is_tensor()) {
    if (input.tag != target.tag) {
      return Error(ErrorCode::InvalidType, name + " is " + value_tag_name(target.tag) + ", given " +
                                               value_tag_name(input.tag));
    }
    // As ExecuTorch: a primitive input is fixed at export, and only its recorded value is taken.
    if (!same_primitive(target, input)) {
      return Error(ErrorCode::InvalidArgument,
                   name + " is " + value_tag_name(target.tag) + " " + primitive_text(target) +
                       ", fixed when the program was exported; given " + primitive_text(input));
    }
    return Error::success();
  }
  if (!input.is_tensor()) {
    return Error(ErrorCode::InvalidType,
                 name + " is a Tensor, given " + std::string(value_tag_name(input.tag)));
  }
  const Tensor& src = input.tensor;
  Tensor& dst = target.tensor;
  const TensorInfo& info = plan_.values[plan_.inputs[i]].tensor;
  if (info.storage == TensorStorage::RuntimeBound && !info.device.is_cpu()) {
    // A skip-copy device input: the caller's device memory is used as it is.
    if (src.device != dst.device || src.dtype != dst.dtype || src.sizes != dst.sizes) {
      return Error(ErrorCode::InvalidArgument,
                   name + " is a runtime-bound " + dst.describe() +
                       ": it takes the caller's memory on that device, given " + src.describe());
    }
    // The method uses dst.nbytes of that memory: a caller tensor of another byte count (the
    // same shape and dtype, but not the memory they need) is refused, as a host input is.
    if (src.nbytes != dst.nbytes) {
      return Error(ErrorCode::InvalidArgument, name + " is a runtime-bound " + dst.describe() +
                                                   " of " + std::to_string(dst.nbytes) +
                                                   " bytes, given one of " +
                                                   std::to_string(src.nbytes) + " bytes");
    }
    dst.data = src.data;
    unbound_[plan_.inputs[i]] = src.data == nullptr && dst.nbytes > 0;
    return Error::success();
  }
  if (!src.device.is_cpu()) {
    return Error(ErrorCode::InvalidArgument,
                 name + ": the given tensor must be host memory, found " + src.device.to_string());
  }
  if (src.dtype != dst.dtype || src.sizes != dst.sizes || src.nbytes != dst.nbytes) {
    return Error(ErrorCode::InvalidArgument, name + " expects " + dst.describe() + " (" +
                                                 std::to_string(dst.nbytes) + " bytes), given " +
                                                 src.describe() + " (" +
                                                 std::to_string(src.nbytes) + " bytes)");
  }
  if (dst.nbytes == 0) return Error::success();
  if (dst.device.is_cpu()) {
    std::memcpy(dst.data, src.data, dst.nbytes);
    return Error::success();
  }
  DeviceAllocator* allocator = runtime_.allocators->get(dst.device.type);
  if (allocator == nullptr) {
    return Error(ErrorCode::NotFound,
                 name + ": no device allocator registered for " + dst.device.to_string());
  }
  Error err = allocator->copy_host_to_device(dst.data, src.data, dst.nbytes, dst.device.index);
  return err.ok() ? err : err.with_context(name);
}

Error Method::set_output_data(size_t i, void* data, size_t nbytes) {
  const std::string name = "method '" + plan_.name + "': output " + std::to_string(i);
  if (i >= plan_.outputs.size()) {
    return Error(ErrorCode::InvalidArgument,
                 name + " does not exist (" + std::to_string(plan_.outputs.size()) + " outputs)");
  }
  const int32_t index = plan_.outputs[i];
  EValue& target = values_[index];
  const ValueInfo& info = plan_.values[index];
  if (!target.is_tensor() || info.tensor.storage != TensorStorage::RuntimeBound) {
    return Error(ErrorCode::InvalidArgument,
                 name + " is not a runtime-bound tensor: its memory is the program's");
  }
  if (nbytes != target.tensor.nbytes) {
    return Error(ErrorCode::InvalidArgument, name + " has " + std::to_string(target.tensor.nbytes) +
                                                 " bytes, given " + std::to_string(nbytes));
  }
  target.tensor.data = data;
  unbound_[index] = data == nullptr && nbytes > 0;
  return Error::success();
}

bool Method::needs_caller_memory(size_t index) const {
  return index < unbound_.size() && unbound_[index] != 0;
}

Result<const EValue*> Method::get_output(size_t i) const {
  if (i >= plan_.outputs.size()) {
    return Error(ErrorCode::InvalidArgument,
                 "method '" + plan_.name + "': output " + std::to_string(i) + " does not exist (" +
                     std::to_string(plan_.outputs.size()) + " outputs)");
  }
  return &values_[plan_.outputs[i]];
}

Error Method::copy_output_to_host(size_t i, void* dst, size_t nbytes) const {
  DEVPLAN_ASSIGN_OR_RETURN(const EValue* out, get_output(i));
  const std::string name = "method '" + plan_.name + "': output " + std::to_string(i);
  if (!out->is_tensor()) {
    return Error(ErrorCode::InvalidType,
                 name + " is " + std::string(value_tag_name(out->tag)) + ", not a Tensor");
  }
  const Tensor& t = out->tensor;
  if (nbytes != t.nbytes) {
    return Error(ErrorCode::InvalidArgument, name + " has " + std::to_string(t.nbytes) +
                                                 " bytes, the destination " +
                                                 std::to_string(nbytes));
  }
  if (nbytes == 0) return Error::success();
  if (t.device.is_cpu()) {
    std::memcpy(dst, t.data, nbytes);
    return Error::success();
  }
  DeviceAllocator* allocator = runtime_.allocators->get(t.device.type);
  if (allocator == nullptr) {
    return Error(ErrorCode::NotFound,
                 name + ": no device allocator registered for " + t.device.to_string());
  }
  Error err = allocator->copy_device_to_host(dst, t.data, nbytes, t.device.index);
  return err.ok() ? err : err.with_context(name);
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
