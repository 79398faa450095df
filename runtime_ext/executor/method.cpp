// Loading a Method (method.h): its values, planned tensors pointed at their buffers, initial
// values copied, runtime-bound storage, delegates initialised and kernels resolved. Executing
// is method_execute.cpp, inputs and outputs method_io.cpp.
#include <runtime_ext/executor/method.h>

#include <cstdint>
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

}  // namespace devplan
