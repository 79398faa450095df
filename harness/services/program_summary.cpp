#include <harness/services/program_summary.h>

#include <runtime_ext/core/byte_count.h>

#include <algorithm>

namespace devplan::harness {
namespace {

ValueSummary summarize_value(const MethodPlan& plan, int32_t index) {
  const ValueInfo& v = plan.values[index];
  ValueSummary s;
  s.value_index = index;
  s.tag = v.tag;
  if (v.tag == ValueTag::Tensor) {
    s.dtype = v.tensor.dtype;
    s.sizes = v.tensor.sizes;
    s.nbytes = v.tensor.nbytes;
    s.device = v.tensor.device;
    s.storage = tensor_storage_name(v.tensor.storage);
    s.buffer_index = v.tensor.buffer_index;
    s.legacy_host = v.tensor.legacy_host;
    s.fully_qualified_name = v.tensor.fully_qualified_name;
  }
  return s;
}

MethodSummary summarize_method(const MethodPlan& plan, const DataFiles* data) {
  MethodSummary m;
  m.name = plan.name;
  m.num_values = plan.values.size();
  for (const ChainInfo& chain : plan.chains) m.num_instructions += chain.instructions.size();
  for (size_t b = 0; b < plan.buffer_sizes.size(); ++b) {
    BufferSummary buffer;
    buffer.index = b;
    buffer.size = plan.buffer_sizes[b];
    buffer.device = plan.buffer_devices[b];
    m.buffers.push_back(buffer);
  }
  for (const ValueInfo& v : plan.values) {
    if (v.tag != ValueTag::Tensor || !v.tensor.is_planned()) continue;
    BufferSummary& buffer = m.buffers[v.tensor.buffer_index];
    ++buffer.planned_tensors;
    buffer.max_end = std::max(buffer.max_end, v.tensor.offset + v.tensor.nbytes);
  }
  for (const OperatorInfo& op : plan.operators) m.operators.push_back(op.full_name());
  for (const DelegateInfo& d : plan.delegates) m.delegates.push_back(d.id);
  for (int32_t i : plan.inputs) m.inputs.push_back(summarize_value(plan, i));
  for (int32_t i : plan.outputs) m.outputs.push_back(summarize_value(plan, i));
  for (size_t v = 0; v < plan.values.size(); ++v) {
    const ValueInfo& value = plan.values[v];
    if (value.tag == ValueTag::Tensor && value.tensor.storage == TensorStorage::External) {
      ValueSummary s = summarize_value(plan, static_cast<int32_t>(v));
      if (data != nullptr) {
        Result<ExternalTensorData> found = resolve_external_tensor(data, value.tensor);
        s.external_found = found.ok();
        s.external_data =
            found.ok() ? "in " + found->file->name() + ", " + format_bytes(found->data.size())
                       : found.error().message();
      }
      m.external.push_back(std::move(s));
    }
  }
  m.notes = plan.notes;
  return m;
}

}  // namespace

const char* tensor_storage_name(TensorStorage storage) {
  switch (storage) {
    case TensorStorage::Constant:
      return "constant";
    case TensorStorage::Planned:
      return "planned";
    case TensorStorage::RuntimeBound:
      return "runtime-bound";
    case TensorStorage::PlannedWithInitial:
      return "planned-with-initial-value";
    case TensorStorage::External:
      return "external";
  }
  return "unknown";
}

Result<std::vector<MethodSummary>> summarize_program(const Program& program,
                                                     const DataFiles* data) {
  std::vector<MethodSummary> methods;
  for (size_t i = 0; i < program.num_methods(); ++i) {
    DEVPLAN_ASSIGN_OR_RETURN(const MethodPlan* plan, program.method_plan_at(i));
    methods.push_back(summarize_method(*plan, data));
  }
  return methods;
}

std::string describe_value(const ValueSummary& value) {
  if (value.tag != ValueTag::Tensor) return value_tag_name(value.tag);
  std::string text = scalar_type_name(value.dtype) + "[";
  for (size_t i = 0; i < value.sizes.size(); ++i) {
    text += (i ? ", " : "") + std::to_string(value.sizes[i]);
  }
  return text + "] on " + value.device.to_string() + " (" + format_bytes(value.nbytes) + ")";
}

std::map<Device, uint64_t> peak_device_bytes(const MethodSummary& method) {
  std::map<Device, uint64_t> bytes;
  for (const BufferSummary& b : method.buffers) {
    if (!b.device.is_cpu()) bytes[b.device] += b.size;
  }
  return bytes;
}

}  // namespace devplan::harness
