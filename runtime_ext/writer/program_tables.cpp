// Step 2 of ProgramWriter (program_writer.h): the flatbuffer tables of every method, then the
// program's.
#include <runtime_ext/writer/program_writer.h>

#include <utility>

namespace devplan {
namespace {

namespace fb = devplan_flatbuffer;
using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;
using writer_internal::OffsetVector;

// True when some device is not cpu:0 (raw CPU devices with another index included).
bool any_off_cpu(const std::vector<Device>& devices) {
  for (Device d : devices) {
    if (d != Device::cpu()) return true;
  }
  return false;
}

// A [ubyte] vector of `bytes`, aligned to `alignment` (1 = no forced alignment).
Offset<flatbuffers::Vector<uint8_t>> byte_vector(FlatBufferBuilder& fbb, Span<const uint8_t> bytes,
                                                 size_t alignment = 1) {
  static const uint8_t kEmpty = 0;
  if (alignment > 1) fbb.ForceVectorAlignment(bytes.size(), sizeof(uint8_t), alignment);
  return fbb.CreateVector(bytes.empty() ? &kEmpty : bytes.data(), bytes.size());
}

}  // namespace

void ProgramWriter::write_flatbuffer() {
  std::vector<Offset<fb::ExecutionPlan>> plans;
  for (size_t m = 0; m < builder_.methods_.size(); ++m) plans.push_back(write_method(m));
  // What ExecuTorch's exporter writes: an empty constant_buffer, and a constant_segment whose
  // offsets hold at least the placeholder [0] (ExecuTorch 1.5.1 rejects a program without
  // one).
  const OffsetVector<fb::Buffer> constant_buffer = write_constant_buffer();
  const OffsetVector<fb::BackendDelegateInlineData> delegate_data = write_inline_delegate_data();
  const OffsetVector<fb::DataSegment> segments_vector = write_segment_table();
  Offset<fb::SubsegmentOffsets> constant_segment = 0;
  if (segment_constants_) {
    constant_segment = fb::CreateSubsegmentOffsets(fbb_, layout_.constant_segment_index,
                                                   fbb_.CreateVector(layout_.constant_offsets));
  }
  OffsetVector<fb::SubsegmentOffsets> mutable_segments = 0;
  if (layout_.has_mutable_segment) {
    std::vector<Offset<fb::SubsegmentOffsets>> entries{fb::CreateSubsegmentOffsets(
        fbb_, layout_.mutable_segment_index, fbb_.CreateVector(layout_.mutable_offsets))};
    mutable_segments = fbb_.CreateVector(entries);
  }
  const auto root =
      fb::CreateProgram(fbb_, options_.version, fbb_.CreateVector(plans), constant_buffer,
                        delegate_data, segments_vector, constant_segment, mutable_segments, 0);
  fbb_.Finish(root, fb::ProgramIdentifier());
}

Offset<fb::ExecutionPlan> ProgramWriter::write_method(size_t m) {
  const MethodBuilder& method = *builder_.methods_[m];
  const MethodPlan& plan = method.plan_;
  std::vector<Offset<fb::EValue>> values;
  for (size_t v = 0; v < plan.values.size(); ++v) values.push_back(write_value(method, m, v));
  const std::vector<Offset<fb::Chain>> chains = write_chains(plan);
  std::vector<Offset<fb::Operator>> operators;
  for (const OperatorInfo& op : plan.operators) {
    operators.push_back(
        fb::CreateOperator(fbb_, fbb_.CreateString(op.name), fbb_.CreateString(op.overload)));
  }
  const std::vector<Offset<fb::BackendDelegate>> delegates = write_delegates(method, m);
  std::vector<int64_t> sizes;
  if (method.raw_buffer_sizes_) {
    sizes = *method.raw_buffer_sizes_;
  } else {
    sizes.push_back(0);
    for (uint64_t size : plan.buffer_sizes) sizes.push_back(static_cast<int64_t>(size));
  }
  const OffsetVector<fb::NonConstBufferDevice> devices = write_buffer_devices(method);
  return fb::CreateExecutionPlan(fbb_, fbb_.CreateString(plan.name), 0, fbb_.CreateVector(values),
                                 fbb_.CreateVector(plan.inputs), fbb_.CreateVector(plan.outputs),
                                 fbb_.CreateVector(chains), fbb_.CreateVector(operators),
                                 fbb_.CreateVector(delegates), fbb_.CreateVector(sizes), devices);
}

Offset<fb::EValue> ProgramWriter::write_value(const MethodBuilder& method, size_t m, size_t v) {
  const ValueInfo& value = method.plan_.values[v];
  const auto type = static_cast<fb::KernelTypes>(static_cast<uint8_t>(value.tag));
  Offset<void> table = 0;
  switch (value.tag) {
    case ValueTag::None:
      break;
    case ValueTag::Null:
      table = fb::CreateNull(fbb_).Union();
      break;
    case ValueTag::Int:
      table = fb::CreateInt(fbb_, value.int_value).Union();
      break;
    case ValueTag::Bool:
      table = fb::CreateBool(fbb_, value.bool_value).Union();
      break;
    case ValueTag::Double:
      table = fb::CreateDouble(fbb_, value.double_value).Union();
      break;
    case ValueTag::String:
      table = fb::CreateString(fbb_, fbb_.CreateString(value.string_value)).Union();
      break;
    case ValueTag::IntList:
      table = fb::CreateIntList(fbb_, fbb_.CreateVector(value.int_list)).Union();
      break;
    case ValueTag::DoubleList:
      table = fb::CreateDoubleList(fbb_, fbb_.CreateVector(value.double_list)).Union();
      break;
    case ValueTag::BoolList: {
      std::vector<uint8_t> items(value.bool_list.begin(), value.bool_list.end());
      table = fb::CreateBoolList(fbb_, fbb_.CreateVector(items)).Union();
      break;
    }
    case ValueTag::TensorList:
      table = fb::CreateTensorList(fbb_, fbb_.CreateVector(value.value_list)).Union();
      break;
    case ValueTag::OptionalTensorList:
      table = fb::CreateOptionalTensorList(fbb_, fbb_.CreateVector(value.value_list)).Union();
      break;
    case ValueTag::Tensor:
      table = write_tensor(method, m, v).Union();
      break;
    default:
      // A raw tag outside the union: write it with an empty table.
      table = fb::CreateNull(fbb_).Union();
      break;
  }
  return fb::CreateEValue(fbb_, type, table);
}

Offset<fb::Tensor> ProgramWriter::write_tensor(const MethodBuilder& method, size_t m, size_t v) {
  const TensorInfo& t = method.plan_.values[v].tensor;
  RawTensorFields raw;
  auto it = method.raw_tensor_fields_.find(static_cast<int32_t>(v));
  if (it != method.raw_tensor_fields_.end()) raw = it->second;
  const uint64_t mutable_idx = raw.mutable_data_segments_idx.value_or(0);
  Offset<fb::ExtraTensorInfo> extra = 0;
  const bool external = t.storage == TensorStorage::External;
  if (t.device != Device::cpu() || !t.fully_qualified_name.empty() || mutable_idx != 0 ||
      external) {
    extra = fb::CreateExtraTensorInfo(
        fbb_, mutable_idx,
        t.fully_qualified_name.empty() ? 0 : fbb_.CreateString(t.fully_qualified_name),
        external ? fb::TensorDataLocation::EXTERNAL : fb::TensorDataLocation::SEGMENT,
        static_cast<fb::DeviceType>(t.device.type), t.device.index);
  }
  Offset<fb::AllocationDetails> allocation = 0;
  if (t.is_planned()) {
    allocation = fb::CreateAllocationDetails(fbb_, raw.memory_id.value_or(t.buffer_index + 1),
                                             static_cast<uint32_t>(t.offset & 0xffffffffu),
                                             static_cast<uint32_t>(t.offset >> 32));
  }
  const uint32_t data_buffer_idx =
      raw.data_buffer_idx.value_or(layout_.values[m][v].data_buffer_idx);
  return fb::CreateTensor(fbb_, static_cast<fb::ScalarType>(t.dtype), 0, fbb_.CreateVector(t.sizes),
                          fbb_.CreateVector(t.dim_order), false, data_buffer_idx, allocation, 0,
                          static_cast<fb::TensorShapeDynamism>(t.dynamism), extra);
}

std::vector<Offset<fb::Chain>> ProgramWriter::write_chains(const MethodPlan& plan) {
  std::vector<Offset<fb::Chain>> chains;
  for (const ChainInfo& chain : plan.chains) {
    std::vector<Offset<fb::Instruction>> instructions;
    for (const InstructionInfo& ins : chain.instructions) {
      instructions.push_back(write_instruction(ins));
    }
    chains.push_back(fb::CreateChain(fbb_, fbb_.CreateVector(chain.inputs),
                                     fbb_.CreateVector(chain.outputs),
                                     fbb_.CreateVector(instructions)));
  }
  // A method with nothing to run still gets one empty chain, as the exporter writes it
  // (ExecuTorch's runtime rejects a method with no chains).
  if (chains.empty()) {
    chains.push_back(fb::CreateChain(fbb_, fbb_.CreateVector(std::vector<int32_t>()),
                                     fbb_.CreateVector(std::vector<int32_t>()),
                                     fbb_.CreateVector(std::vector<Offset<fb::Instruction>>())));
  }
  return chains;
}

Offset<fb::Instruction> ProgramWriter::write_instruction(const InstructionInfo& ins) {
  const auto type = static_cast<fb::InstructionArguments>(static_cast<uint8_t>(ins.kind) + 1);
  Offset<void> table = 0;
  switch (ins.kind) {
    case InstructionKind::KernelCall:
      table = fb::CreateKernelCall(fbb_, ins.op_index, fbb_.CreateVector(ins.args)).Union();
      break;
    case InstructionKind::DelegateCall:
      table = fb::CreateDelegateCall(fbb_, ins.delegate_index, fbb_.CreateVector(ins.args)).Union();
      break;
    case InstructionKind::Move:
      table = fb::CreateMoveCall(fbb_, ins.move_from, ins.move_to).Union();
      break;
    case InstructionKind::JumpFalse:
      table = fb::CreateJumpFalseCall(fbb_, ins.cond_value, ins.destination).Union();
      break;
    case InstructionKind::Free:
      table = fb::CreateFreeCall(fbb_, ins.free_value).Union();
      break;
    default:
      table = fb::CreateNull(fbb_).Union();
      break;
  }
  return fb::CreateInstruction(fbb_, type, table);
}

std::vector<Offset<fb::BackendDelegate>> ProgramWriter::write_delegates(const MethodBuilder& method,
                                                                        size_t m) {
  const MethodPlan& plan = method.plan_;
  std::vector<Offset<fb::BackendDelegate>> delegates;
  for (size_t d = 0; d < plan.delegates.size(); ++d) {
    const DelegateInfo& delegate = plan.delegates[d];
    std::vector<Offset<fb::CompileSpec>> specs;
    for (const CompileSpecInfo& spec : delegate.compile_specs) {
      specs.push_back(
          fb::CreateCompileSpec(fbb_, fbb_.CreateString(spec.key), byte_vector(fbb_, spec.value)));
    }
    const DelegateData& where = layout_.delegates[m][d];
    const auto reference =
        fb::CreateBackendDelegateDataReference(fbb_, where.location, where.index);
    delegates.push_back(fb::CreateBackendDelegate(fbb_, fbb_.CreateString(delegate.id), reference,
                                                  fbb_.CreateVector(specs)));
  }
  return delegates;
}

OffsetVector<fb::NonConstBufferDevice> ProgramWriter::write_buffer_devices(
    const MethodBuilder& method) {
  std::vector<Offset<fb::NonConstBufferDevice>> device_entries;
  if (method.raw_buffer_devices_) {
    for (const RawBufferDevice& e : *method.raw_buffer_devices_) {
      device_entries.push_back(fb::CreateNonConstBufferDevice(
          fbb_, e.buffer_idx, static_cast<fb::DeviceType>(e.device_type), e.device_index));
    }
    return fbb_.CreateVector(device_entries);
  }
  const std::vector<Device>& buffer_devices = method.plan_.buffer_devices;
  if (!any_off_cpu(buffer_devices)) return 0;
  for (size_t b = 0; b < buffer_devices.size(); ++b) {
    const Device d = buffer_devices[b];
    if (d == Device::cpu()) continue;
    device_entries.push_back(fb::CreateNonConstBufferDevice(
        fbb_, static_cast<int32_t>(b + 1), static_cast<fb::DeviceType>(d.type), d.index));
  }
  return fbb_.CreateVector(device_entries);
}

OffsetVector<fb::Buffer> ProgramWriter::write_constant_buffer() {
  if (segment_constants_) return fbb_.CreateVector(std::vector<Offset<fb::Buffer>>());
  if (layout_.num_constants == 0) return 0;
  std::vector<Offset<fb::Buffer>> buffers;
  for (const Span<const uint8_t>& data : layout_.inline_constants) {
    buffers.push_back(fb::CreateBuffer(fbb_, byte_vector(fbb_, data, 16)));
  }
  return fbb_.CreateVector(buffers);
}

OffsetVector<fb::BackendDelegateInlineData> ProgramWriter::write_inline_delegate_data() {
  if (layout_.inline_delegate_data.empty() && !segment_constants_) return 0;
  std::vector<Offset<fb::BackendDelegateInlineData>> entries;
  for (const Span<const uint8_t>& data : layout_.inline_delegate_data) {
    entries.push_back(fb::CreateBackendDelegateInlineData(fbb_, byte_vector(fbb_, data, 16)));
  }
  return fbb_.CreateVector(entries);
}

OffsetVector<fb::DataSegment> ProgramWriter::write_segment_table() {
  for (size_t k = 0; k < layout_.segments.size(); ++k) {
    segment_table_.push_back(RawSegment{layout_.segment_offsets[k], layout_.segments[k].size()});
  }
  for (const RawSegment& raw : builder_.raw_segments_) segment_table_.push_back(raw);
  if (segment_table_.empty()) return 0;
  std::vector<Offset<fb::DataSegment>> entries;
  for (const RawSegment& s : segment_table_) {
    entries.push_back(fb::CreateDataSegment(fbb_, s.offset, s.size));
  }
  return fbb_.CreateVector(entries);
}

}  // namespace devplan
