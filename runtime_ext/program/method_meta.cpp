#include <runtime_ext/program/method_meta.h>

namespace devplan {

Error MethodMeta::index_error(const char* what, size_t index, size_t count) const {
  std::string counted = std::to_string(count) + " " + what + (count == 1 ? "" : "s");
  return Error(ErrorCode::InvalidArgument, "method '" + plan_->name + "': " + what + " index " +
                                               std::to_string(index) +
                                               " is out of range (the method has " + counted + ")");
}

Result<ValueTag> MethodMeta::input_tag(size_t index) const {
  if (index >= plan_->inputs.size()) return index_error("input", index, plan_->inputs.size());
  return plan_->values[plan_->inputs[index]].tag;
}

Result<ValueTag> MethodMeta::output_tag(size_t index) const {
  if (index >= plan_->outputs.size()) {
    return index_error("output", index, plan_->outputs.size());
  }
  return plan_->values[plan_->outputs[index]].tag;
}

Result<TensorMeta> MethodMeta::tensor_meta(const char* what, size_t index,
                                           const std::vector<int32_t>& list) const {
  if (index >= list.size()) return index_error(what, index, list.size());
  const int32_t value_index = list[index];
  const ValueInfo& value = plan_->values[value_index];
  if (value.tag != ValueTag::Tensor) {
    return Error(ErrorCode::InvalidArgument, "method '" + plan_->name + "': " + what + " " +
                                                 std::to_string(index) + " (value " +
                                                 std::to_string(value_index) + ") is " +
                                                 value_tag_name(value.tag) + ", not a Tensor");
  }
  const TensorInfo& t = value.tensor;
  TensorMeta meta;
  meta.dtype = t.dtype;
  meta.sizes = Span<const int32_t>(t.sizes);
  meta.dim_order = Span<const uint8_t>(t.dim_order);
  meta.nbytes = t.nbytes;
  meta.device = t.device;
  meta.storage = t.storage;
  return meta;
}

Result<TensorMeta> MethodMeta::input_tensor_meta(size_t index) const {
  return tensor_meta("input", index, plan_->inputs);
}

Result<TensorMeta> MethodMeta::output_tensor_meta(size_t index) const {
  return tensor_meta("output", index, plan_->outputs);
}

Result<int64_t> MethodMeta::memory_planned_buffer_size(size_t index) const {
  if (index >= plan_->buffer_sizes.size()) {
    return index_error("planned buffer", index, plan_->buffer_sizes.size());
  }
  return static_cast<int64_t>(plan_->buffer_sizes[index]);
}

Result<Device> MethodMeta::memory_planned_buffer_device(size_t index) const {
  if (index >= plan_->buffer_devices.size()) {
    return index_error("planned buffer", index, plan_->buffer_devices.size());
  }
  return plan_->buffer_devices[index];
}

size_t MethodMeta::num_instructions() const {
  size_t n = 0;
  for (const ChainInfo& chain : plan_->chains) n += chain.instructions.size();
  return n;
}

Result<const char*> MethodMeta::backend_name(size_t index) const {
  if (index >= plan_->delegates.size()) {
    return index_error("backend", index, plan_->delegates.size());
  }
  return plan_->delegates[index].id.c_str();
}

bool MethodMeta::uses_backend(const std::string& backend_id) const {
  for (const DelegateInfo& d : plan_->delegates) {
    if (d.id == backend_id) return true;
  }
  return false;
}

}  // namespace devplan
