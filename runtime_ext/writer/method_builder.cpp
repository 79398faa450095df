#include <runtime_ext/writer/method_builder.h>

namespace devplan {
namespace {

// product(sizes) * element_size(dtype); 0 for an unknown dtype, a negative size or overflow
// (only invalid programs have those, and the reader rejects them before using nbytes).
uint64_t compute_nbytes(ScalarType dtype, const std::vector<int32_t>& sizes) {
  uint64_t n = element_size(dtype);
  for (int32_t s : sizes) {
    if (s < 0 || __builtin_mul_overflow(n, static_cast<uint64_t>(s), &n)) return 0;
  }
  return n;
}

}  // namespace

TensorSpec TensorSpec::of(ScalarType dtype, std::vector<int32_t> sizes, Device device) {
  TensorSpec spec;
  spec.dtype = dtype;
  spec.dim_order.resize(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) spec.dim_order[i] = static_cast<uint8_t>(i);
  spec.sizes = std::move(sizes);
  spec.device = device;
  return spec;
}

MethodBuilder::MethodBuilder(std::string name) { plan_.name = std::move(name); }

MethodBuilder::MethodBuilder(MethodPlan plan) : plan_(std::move(plan)) {
  for (ValueInfo& value : plan_.values) {
    if (!value.tensor.data.empty()) {
      value.tensor.data =
          own(std::vector<uint8_t>(value.tensor.data.begin(), value.tensor.data.end()));
    }
  }
  for (DelegateInfo& delegate : plan_.delegates) {
    delegate.processed =
        own(std::vector<uint8_t>(delegate.processed.begin(), delegate.processed.end()));
    for (CompileSpecInfo& spec : delegate.compile_specs) {
      spec.value = own(std::vector<uint8_t>(spec.value.begin(), spec.value.end()));
    }
  }
  delegate_locations_.assign(plan_.delegates.size(), DelegateDataLocation::Segment);
}

Span<const uint8_t> MethodBuilder::own(std::vector<uint8_t> bytes) {
  owned_.push_back(std::move(bytes));
  return Span<const uint8_t>(owned_.back());
}

uint32_t MethodBuilder::add_buffer(uint64_t size, Device device) {
  plan_.buffer_sizes.push_back(size);
  plan_.buffer_devices.push_back(device);
  return static_cast<uint32_t>(plan_.buffer_sizes.size() - 1);
}

int32_t MethodBuilder::push_value(ValueInfo value) {
  plan_.values.push_back(std::move(value));
  return static_cast<int32_t>(plan_.values.size() - 1);
}

int32_t MethodBuilder::add_null() {
  ValueInfo v;
  v.tag = ValueTag::Null;
  return push_value(std::move(v));
}

int32_t MethodBuilder::add_int(int64_t value) {
  return push_value(tagged_value(ValueTag::Int, &ValueInfo::int_value, value));
}

int32_t MethodBuilder::add_bool(bool value) {
  return push_value(tagged_value(ValueTag::Bool, &ValueInfo::bool_value, value));
}

int32_t MethodBuilder::add_double(double value) {
  return push_value(tagged_value(ValueTag::Double, &ValueInfo::double_value, value));
}

int32_t MethodBuilder::add_string(std::string value) {
  return push_value(tagged_value(ValueTag::String, &ValueInfo::string_value, std::move(value)));
}

int32_t MethodBuilder::add_int_list(std::vector<int64_t> items) {
  return push_value(tagged_value(ValueTag::IntList, &ValueInfo::int_list, std::move(items)));
}

int32_t MethodBuilder::add_double_list(std::vector<double> items) {
  return push_value(tagged_value(ValueTag::DoubleList, &ValueInfo::double_list, std::move(items)));
}

int32_t MethodBuilder::add_bool_list(std::vector<bool> items) {
  return push_value(tagged_value(ValueTag::BoolList, &ValueInfo::bool_list, std::move(items)));
}

int32_t MethodBuilder::add_tensor_list(std::vector<int32_t> value_indices) {
  return push_value(
      tagged_value(ValueTag::TensorList, &ValueInfo::value_list, std::move(value_indices)));
}

int32_t MethodBuilder::add_optional_tensor_list(std::vector<int32_t> value_indices) {
  return push_value(
      tagged_value(ValueTag::OptionalTensorList, &ValueInfo::value_list, std::move(value_indices)));
}

int32_t MethodBuilder::add_tensor(const TensorSpec& spec, TensorStorage storage) {
  ValueInfo v;
  v.tag = ValueTag::Tensor;
  TensorInfo& t = v.tensor;
  t.dtype = spec.dtype;
  t.sizes = spec.sizes;
  t.dim_order = spec.dim_order;
  t.dynamism = spec.dynamism;
  t.storage = storage;
  t.nbytes = compute_nbytes(spec.dtype, spec.sizes);
  t.device = spec.device;
  t.fully_qualified_name = spec.fully_qualified_name;
  return push_value(std::move(v));
}

int32_t MethodBuilder::add_runtime_tensor(const TensorSpec& spec) {
  return add_tensor(spec, TensorStorage::RuntimeBound);
}

int32_t MethodBuilder::add_external_tensor(const TensorSpec& spec) {
  return add_tensor(spec, TensorStorage::External);
}

int32_t MethodBuilder::add_planned_tensor(const TensorSpec& spec, uint32_t buffer,
                                          uint64_t offset) {
  const int32_t index = add_tensor(spec, TensorStorage::Planned);
  plan_.values[index].tensor.buffer_index = buffer;
  plan_.values[index].tensor.offset = offset;
  return index;
}

int32_t MethodBuilder::add_planned_tensor_with_initial_value(const TensorSpec& spec,
                                                             uint32_t buffer, uint64_t offset,
                                                             std::vector<uint8_t> initial) {
  const int32_t index = add_tensor(spec, TensorStorage::PlannedWithInitial);
  TensorInfo& t = plan_.values[index].tensor;
  t.buffer_index = buffer;
  t.offset = offset;
  t.data = own(std::move(initial));
  return index;
}

int32_t MethodBuilder::add_constant_tensor(const TensorSpec& spec, std::vector<uint8_t> data) {
  const int32_t index = add_tensor(spec, TensorStorage::Constant);
  plan_.values[index].tensor.data = own(std::move(data));
  return index;
}

int32_t MethodBuilder::add_value(const ValueInfo& value) {
  ValueInfo copy = value;
  if (!copy.tensor.data.empty()) {
    copy.tensor.data =
        own(std::vector<uint8_t>(value.tensor.data.begin(), value.tensor.data.end()));
  }
  return push_value(std::move(copy));
}

void MethodBuilder::set_inputs(std::vector<int32_t> value_indices) {
  plan_.inputs = std::move(value_indices);
}

void MethodBuilder::set_outputs(std::vector<int32_t> value_indices) {
  plan_.outputs = std::move(value_indices);
}

int32_t MethodBuilder::add_operator(const std::string& name, const std::string& overload) {
  for (size_t i = 0; i < plan_.operators.size(); ++i) {
    if (plan_.operators[i].name == name && plan_.operators[i].overload == overload) {
      return static_cast<int32_t>(i);
    }
  }
  plan_.operators.push_back(OperatorInfo{name, overload});
  return static_cast<int32_t>(plan_.operators.size() - 1);
}

int32_t MethodBuilder::add_delegate(
    std::string backend_id, std::vector<uint8_t> processed,
    std::vector<std::pair<std::string, std::vector<uint8_t>>> compile_specs,
    DelegateDataLocation location) {
  DelegateInfo d;
  d.id = std::move(backend_id);
  d.processed = own(std::move(processed));
  for (auto& spec : compile_specs) {
    d.compile_specs.push_back(CompileSpecInfo{std::move(spec.first), own(std::move(spec.second))});
  }
  plan_.delegates.push_back(std::move(d));
  delegate_locations_.push_back(location);
  return static_cast<int32_t>(plan_.delegates.size() - 1);
}

size_t MethodBuilder::add_chain(std::vector<int32_t> inputs, std::vector<int32_t> outputs) {
  ChainInfo chain;
  chain.inputs = std::move(inputs);
  chain.outputs = std::move(outputs);
  plan_.chains.push_back(std::move(chain));
  return plan_.chains.size() - 1;
}

ChainInfo& MethodBuilder::current_chain() {
  if (plan_.chains.empty()) add_chain();
  return plan_.chains.back();
}

void MethodBuilder::add_kernel_call(int32_t op_index, std::vector<int32_t> args) {
  InstructionInfo ins;
  ins.kind = InstructionKind::KernelCall;
  ins.op_index = op_index;
  ins.args = std::move(args);
  current_chain().instructions.push_back(std::move(ins));
}

void MethodBuilder::add_kernel_call(const std::string& name, const std::string& overload,
                                    std::vector<int32_t> args) {
  add_kernel_call(add_operator(name, overload), std::move(args));
}

void MethodBuilder::add_delegate_call(int32_t delegate_index, std::vector<int32_t> args) {
  InstructionInfo ins;
  ins.kind = InstructionKind::DelegateCall;
  ins.delegate_index = delegate_index;
  ins.args = std::move(args);
  current_chain().instructions.push_back(std::move(ins));
}

void MethodBuilder::add_move(int32_t from, int32_t to) {
  InstructionInfo ins;
  ins.kind = InstructionKind::Move;
  ins.move_from = from;
  ins.move_to = to;
  current_chain().instructions.push_back(std::move(ins));
}

void MethodBuilder::add_jump_false(int32_t cond_value, int32_t destination) {
  InstructionInfo ins;
  ins.kind = InstructionKind::JumpFalse;
  ins.cond_value = cond_value;
  ins.destination = destination;
  current_chain().instructions.push_back(std::move(ins));
}

void MethodBuilder::add_free(int32_t value) {
  InstructionInfo ins;
  ins.kind = InstructionKind::Free;
  ins.free_value = value;
  current_chain().instructions.push_back(std::move(ins));
}

void MethodBuilder::add_instruction(const InstructionInfo& instruction) {
  current_chain().instructions.push_back(instruction);
}

void MethodBuilder::set_raw_buffer_sizes(std::vector<int64_t> entries) {
  raw_buffer_sizes_ = std::move(entries);
}

void MethodBuilder::set_raw_buffer_devices(std::vector<RawBufferDevice> entries) {
  raw_buffer_devices_ = std::move(entries);
}

void MethodBuilder::set_raw_tensor_fields(int32_t value_index, RawTensorFields fields) {
  raw_tensor_fields_[value_index] = fields;
}

void MethodBuilder::set_raw_delegate_reference(int32_t delegate_index, uint8_t location,
                                               uint32_t index) {
  raw_delegate_references_[delegate_index] = RawDelegateReference{location, index};
}

}  // namespace devplan
