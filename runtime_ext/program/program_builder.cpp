#include <runtime_ext/core/alignment.h>
#include <runtime_ext/program/extended_header.h>
#include <runtime_ext/program/program_builder.h>
#include <runtime_ext/schema/program_generated.h>

#include <cstring>
#include <utility>

namespace devplan {
namespace {

namespace fb = devplan_flatbuffer;
using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;

uint64_t round_up(uint64_t n, uint64_t alignment) {
  if (alignment <= 1) return n;
  uint64_t out = n;
  if (!align_up(n, alignment, &out)) return n;  // unreachable for in-memory sizes
  return out;
}

void pad_to(std::vector<uint8_t>* bytes, uint64_t size) {
  if (bytes->size() < size) bytes->resize(size, 0);
}

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

// Where each value's data goes, decided before any table is written.
struct ValueData {
  uint32_t data_buffer_idx = 0;
};

struct DelegateData {
  fb::DataLocation location = fb::DataLocation::INLINE;
  uint32_t index = 0;
};

// The program-wide data layout: constants, initial values, delegate data, segments.
struct Layout {
  std::vector<std::vector<ValueData>> values;        // [method][value]
  std::vector<std::vector<DelegateData>> delegates;  // [method][delegate]

  // Segment contents in segment-table order.
  std::vector<std::vector<uint8_t>> segments;

  uint32_t constant_segment_index = 0;
  std::vector<uint64_t> constant_offsets;             // segment mode
  std::vector<Span<const uint8_t>> inline_constants;  // inline mode; [0] is the placeholder

  bool has_mutable_segment = false;
  uint32_t mutable_segment_index = 0;
  std::vector<uint64_t> mutable_offsets;

  std::vector<Span<const uint8_t>> inline_delegate_data;
};

}  // namespace

ProgramBuilder::ProgramBuilder(ProgramBuilderOptions options) : options_(std::move(options)) {}

MethodBuilder& ProgramBuilder::add_method(std::string name) {
  methods_.push_back(std::make_unique<MethodBuilder>(std::move(name)));
  return *methods_.back();
}

MethodBuilder& ProgramBuilder::add_method(const MethodPlan& plan) {
  methods_.push_back(std::make_unique<MethodBuilder>(plan));
  return *methods_.back();
}

void ProgramBuilder::add_raw_segment(uint64_t offset, uint64_t size) {
  raw_segments_.push_back(RawSegment{offset, size});
}

std::vector<uint8_t> ProgramBuilder::build() const {
  const bool segment_constants =
      options_.constant_storage == ProgramBuilderOptions::ConstantStorage::Segment;

  // ---- 1. Data layout ----------------------------------------------------------------------
  Layout layout;
  std::vector<uint8_t> constant_bytes;
  std::vector<uint8_t> mutable_bytes;
  layout.constant_offsets.push_back(0);
  layout.mutable_offsets.push_back(0);
  layout.inline_constants.push_back(Span<const uint8_t>());
  size_t num_constants = 0;
  size_t num_initial = 0;
  for (const auto& method : methods_) {
    const MethodPlan& plan = method->plan_;
    std::vector<ValueData> values(plan.values.size());
    for (size_t v = 0; v < plan.values.size(); ++v) {
      const ValueInfo& value = plan.values[v];
      if (value.tag != ValueTag::Tensor) continue;
      const TensorInfo& t = value.tensor;
      if (t.storage == TensorStorage::Constant) {
        ++num_constants;
        if (segment_constants) {
          const uint64_t start = round_up(constant_bytes.size(), options_.constant_alignment);
          pad_to(&constant_bytes, start);
          constant_bytes.insert(constant_bytes.end(), t.data.begin(), t.data.end());
          layout.constant_offsets.push_back(start);
          values[v].data_buffer_idx = static_cast<uint32_t>(layout.constant_offsets.size() - 1);
        } else {
          layout.inline_constants.push_back(t.data);
          values[v].data_buffer_idx = static_cast<uint32_t>(layout.inline_constants.size() - 1);
        }
      } else if (t.storage == TensorStorage::PlannedWithInitial) {
        ++num_initial;
        const uint64_t start = round_up(mutable_bytes.size(), options_.constant_alignment);
        pad_to(&mutable_bytes, start);
        mutable_bytes.insert(mutable_bytes.end(), t.data.begin(), t.data.end());
        layout.mutable_offsets.push_back(start);
        values[v].data_buffer_idx = static_cast<uint32_t>(layout.mutable_offsets.size() - 1);
      }
    }
    layout.values.push_back(std::move(values));
  }
  if (segment_constants && num_constants > 0) {
    layout.constant_segment_index = static_cast<uint32_t>(layout.segments.size());
    layout.segments.push_back(std::move(constant_bytes));
  }
  if (num_initial > 0) {
    layout.has_mutable_segment = true;
    layout.mutable_segment_index = static_cast<uint32_t>(layout.segments.size());
    layout.segments.push_back(std::move(mutable_bytes));
  }
  for (const auto& method : methods_) {
    const MethodPlan& plan = method->plan_;
    std::vector<DelegateData> delegates(plan.delegates.size());
    for (size_t d = 0; d < plan.delegates.size(); ++d) {
      auto raw = method->raw_delegate_references_.find(static_cast<int32_t>(d));
      if (raw != method->raw_delegate_references_.end()) {
        delegates[d].location = static_cast<fb::DataLocation>(raw->second.location);
        delegates[d].index = raw->second.index;
        continue;
      }
      const Span<const uint8_t> data = plan.delegates[d].processed;
      if (method->delegate_locations_[d] == DelegateDataLocation::Segment) {
        delegates[d].location = fb::DataLocation::SEGMENT;
        delegates[d].index = static_cast<uint32_t>(layout.segments.size());
        layout.segments.emplace_back(data.begin(), data.end());
      } else {
        delegates[d].location = fb::DataLocation::INLINE;
        delegates[d].index = static_cast<uint32_t>(layout.inline_delegate_data.size());
        layout.inline_delegate_data.push_back(data);
      }
    }
    layout.delegates.push_back(std::move(delegates));
  }

  // Segment offsets relative to the segment base.
  std::vector<uint64_t> segment_offsets;
  uint64_t segment_end = 0;
  for (const std::vector<uint8_t>& segment : layout.segments) {
    const uint64_t start = round_up(segment_end, options_.segment_alignment);
    segment_offsets.push_back(start);
    segment_end = start + segment.size();
  }

  // ---- 2. The flatbuffer ---------------------------------------------------------------------
  FlatBufferBuilder fbb(4096);
  std::vector<Offset<fb::ExecutionPlan>> plans;
  for (size_t m = 0; m < methods_.size(); ++m) {
    const MethodBuilder& method = *methods_[m];
    const MethodPlan& plan = method.plan_;

    std::vector<Offset<fb::EValue>> values;
    for (size_t v = 0; v < plan.values.size(); ++v) {
      const ValueInfo& value = plan.values[v];
      const auto type = static_cast<fb::KernelTypes>(static_cast<uint8_t>(value.tag));
      Offset<void> table = 0;
      switch (value.tag) {
        case ValueTag::None:
          break;
        case ValueTag::Null:
          table = fb::CreateNull(fbb).Union();
          break;
        case ValueTag::Int:
          table = fb::CreateInt(fbb, value.int_value).Union();
          break;
        case ValueTag::Bool:
          table = fb::CreateBool(fbb, value.bool_value).Union();
          break;
        case ValueTag::Double:
          table = fb::CreateDouble(fbb, value.double_value).Union();
          break;
        case ValueTag::String:
          table = fb::CreateString(fbb, fbb.CreateString(value.string_value)).Union();
          break;
        case ValueTag::IntList:
          table = fb::CreateIntList(fbb, fbb.CreateVector(value.int_list)).Union();
          break;
        case ValueTag::DoubleList:
          table = fb::CreateDoubleList(fbb, fbb.CreateVector(value.double_list)).Union();
          break;
        case ValueTag::BoolList: {
          std::vector<uint8_t> items(value.bool_list.begin(), value.bool_list.end());
          table = fb::CreateBoolList(fbb, fbb.CreateVector(items)).Union();
          break;
        }
        case ValueTag::TensorList:
          table = fb::CreateTensorList(fbb, fbb.CreateVector(value.value_list)).Union();
          break;
        case ValueTag::OptionalTensorList:
          table = fb::CreateOptionalTensorList(fbb, fbb.CreateVector(value.value_list)).Union();
          break;
        case ValueTag::Tensor: {
          const TensorInfo& t = value.tensor;
          RawTensorFields raw;
          auto it = method.raw_tensor_fields_.find(static_cast<int32_t>(v));
          if (it != method.raw_tensor_fields_.end()) raw = it->second;
          const uint64_t mutable_idx = raw.mutable_data_segments_idx.value_or(0);
          Offset<fb::ExtraTensorInfo> extra = 0;
          const bool external = t.storage == TensorStorage::External;
          if (t.device != Device::cpu() || !t.fully_qualified_name.empty() || mutable_idx != 0 ||
              external) {
            extra = fb::CreateExtraTensorInfo(
                fbb, mutable_idx,
                t.fully_qualified_name.empty() ? 0 : fbb.CreateString(t.fully_qualified_name),
                external ? fb::TensorDataLocation::EXTERNAL : fb::TensorDataLocation::SEGMENT,
                static_cast<fb::DeviceType>(t.device.type), t.device.index);
          }
          Offset<fb::AllocationDetails> allocation = 0;
          if (t.is_planned()) {
            allocation =
                fb::CreateAllocationDetails(fbb, raw.memory_id.value_or(t.buffer_index + 1),
                                            static_cast<uint32_t>(t.offset & 0xffffffffu),
                                            static_cast<uint32_t>(t.offset >> 32));
          }
          const uint32_t data_buffer_idx =
              raw.data_buffer_idx.value_or(layout.values[m][v].data_buffer_idx);
          table = fb::CreateTensor(fbb, static_cast<fb::ScalarType>(t.dtype), 0,
                                   fbb.CreateVector(t.sizes), fbb.CreateVector(t.dim_order), false,
                                   data_buffer_idx, allocation, 0,
                                   static_cast<fb::TensorShapeDynamism>(t.dynamism), extra)
                      .Union();
          break;
        }
        default:
          // A raw tag outside the union: write it with an empty table.
          table = fb::CreateNull(fbb).Union();
          break;
      }
      values.push_back(fb::CreateEValue(fbb, type, table));
    }

    std::vector<Offset<fb::Chain>> chains;
    for (const ChainInfo& chain : plan.chains) {
      std::vector<Offset<fb::Instruction>> instructions;
      for (const InstructionInfo& ins : chain.instructions) {
        const auto type = static_cast<fb::InstructionArguments>(static_cast<uint8_t>(ins.kind) + 1);
        Offset<void> table = 0;
        switch (ins.kind) {
          case InstructionKind::KernelCall:
            table = fb::CreateKernelCall(fbb, ins.op_index, fbb.CreateVector(ins.args)).Union();
            break;
          case InstructionKind::DelegateCall:
            table =
                fb::CreateDelegateCall(fbb, ins.delegate_index, fbb.CreateVector(ins.args)).Union();
            break;
          case InstructionKind::Move:
            table = fb::CreateMoveCall(fbb, ins.move_from, ins.move_to).Union();
            break;
          case InstructionKind::JumpFalse:
            table = fb::CreateJumpFalseCall(fbb, ins.cond_value, ins.destination).Union();
            break;
          case InstructionKind::Free:
            table = fb::CreateFreeCall(fbb, ins.free_value).Union();
            break;
          default:
            table = fb::CreateNull(fbb).Union();
            break;
        }
        instructions.push_back(fb::CreateInstruction(fbb, type, table));
      }
      chains.push_back(fb::CreateChain(fbb, fbb.CreateVector(chain.inputs),
                                       fbb.CreateVector(chain.outputs),
                                       fbb.CreateVector(instructions)));
    }
    // A method with nothing to run still gets one empty chain, as the exporter writes it
    // (ExecuTorch's runtime rejects a method with no chains).
    if (chains.empty()) {
      chains.push_back(fb::CreateChain(fbb, fbb.CreateVector(std::vector<int32_t>()),
                                       fbb.CreateVector(std::vector<int32_t>()),
                                       fbb.CreateVector(std::vector<Offset<fb::Instruction>>())));
    }

    std::vector<Offset<fb::Operator>> operators;
    for (const OperatorInfo& op : plan.operators) {
      operators.push_back(
          fb::CreateOperator(fbb, fbb.CreateString(op.name), fbb.CreateString(op.overload)));
    }

    std::vector<Offset<fb::BackendDelegate>> delegates;
    for (size_t d = 0; d < plan.delegates.size(); ++d) {
      const DelegateInfo& delegate = plan.delegates[d];
      std::vector<Offset<fb::CompileSpec>> specs;
      for (const CompileSpecInfo& spec : delegate.compile_specs) {
        specs.push_back(
            fb::CreateCompileSpec(fbb, fbb.CreateString(spec.key), byte_vector(fbb, spec.value)));
      }
      const DelegateData& where = layout.delegates[m][d];
      const auto reference =
          fb::CreateBackendDelegateDataReference(fbb, where.location, where.index);
      delegates.push_back(fb::CreateBackendDelegate(fbb, fbb.CreateString(delegate.id), reference,
                                                    fbb.CreateVector(specs)));
    }

    std::vector<int64_t> sizes;
    if (method.raw_buffer_sizes_) {
      sizes = *method.raw_buffer_sizes_;
    } else {
      sizes.push_back(0);
      for (uint64_t size : plan.buffer_sizes) sizes.push_back(static_cast<int64_t>(size));
    }
    Offset<flatbuffers::Vector<Offset<fb::NonConstBufferDevice>>> devices = 0;
    std::vector<Offset<fb::NonConstBufferDevice>> device_entries;
    if (method.raw_buffer_devices_) {
      for (const RawBufferDevice& e : *method.raw_buffer_devices_) {
        device_entries.push_back(fb::CreateNonConstBufferDevice(
            fbb, e.buffer_idx, static_cast<fb::DeviceType>(e.device_type), e.device_index));
      }
      devices = fbb.CreateVector(device_entries);
    } else if (any_off_cpu(plan.buffer_devices)) {
      for (size_t b = 0; b < plan.buffer_devices.size(); ++b) {
        const Device d = plan.buffer_devices[b];
        if (d == Device::cpu()) continue;
        device_entries.push_back(fb::CreateNonConstBufferDevice(
            fbb, static_cast<int32_t>(b + 1), static_cast<fb::DeviceType>(d.type), d.index));
      }
      devices = fbb.CreateVector(device_entries);
    }

    plans.push_back(
        fb::CreateExecutionPlan(fbb, fbb.CreateString(plan.name), 0, fbb.CreateVector(values),
                                fbb.CreateVector(plan.inputs), fbb.CreateVector(plan.outputs),
                                fbb.CreateVector(chains), fbb.CreateVector(operators),
                                fbb.CreateVector(delegates), fbb.CreateVector(sizes), devices));
  }

  // What ExecuTorch's exporter writes: an empty constant_buffer, and a constant_segment whose
  // offsets hold at least the placeholder [0] (ExecuTorch 1.5.1 rejects a program without one).
  Offset<flatbuffers::Vector<Offset<fb::Buffer>>> constant_buffer = 0;
  if (segment_constants) {
    constant_buffer = fbb.CreateVector(std::vector<Offset<fb::Buffer>>());
  } else if (num_constants > 0) {
    std::vector<Offset<fb::Buffer>> buffers;
    for (const Span<const uint8_t>& data : layout.inline_constants) {
      buffers.push_back(fb::CreateBuffer(fbb, byte_vector(fbb, data, 16)));
    }
    constant_buffer = fbb.CreateVector(buffers);
  }
  Offset<flatbuffers::Vector<Offset<fb::BackendDelegateInlineData>>> delegate_data = 0;
  if (!layout.inline_delegate_data.empty() || segment_constants) {
    std::vector<Offset<fb::BackendDelegateInlineData>> entries;
    for (const Span<const uint8_t>& data : layout.inline_delegate_data) {
      entries.push_back(fb::CreateBackendDelegateInlineData(fbb, byte_vector(fbb, data, 16)));
    }
    delegate_data = fbb.CreateVector(entries);
  }
  std::vector<RawSegment> segment_table;
  for (size_t k = 0; k < layout.segments.size(); ++k) {
    segment_table.push_back(RawSegment{segment_offsets[k], layout.segments[k].size()});
  }
  for (const RawSegment& raw : raw_segments_) segment_table.push_back(raw);
  Offset<flatbuffers::Vector<Offset<fb::DataSegment>>> segments_vector = 0;
  if (!segment_table.empty()) {
    std::vector<Offset<fb::DataSegment>> entries;
    for (const RawSegment& s : segment_table) {
      entries.push_back(fb::CreateDataSegment(fbb, s.offset, s.size));
    }
    segments_vector = fbb.CreateVector(entries);
  }
  Offset<fb::SubsegmentOffsets> constant_segment = 0;
  if (segment_constants) {
    constant_segment = fb::CreateSubsegmentOffsets(fbb, layout.constant_segment_index,
                                                   fbb.CreateVector(layout.constant_offsets));
  }
  Offset<flatbuffers::Vector<Offset<fb::SubsegmentOffsets>>> mutable_segments = 0;
  if (layout.has_mutable_segment) {
    std::vector<Offset<fb::SubsegmentOffsets>> entries{fb::CreateSubsegmentOffsets(
        fbb, layout.mutable_segment_index, fbb.CreateVector(layout.mutable_offsets))};
    mutable_segments = fbb.CreateVector(entries);
  }
  const auto root =
      fb::CreateProgram(fbb, options_.version, fbb.CreateVector(plans), constant_buffer,
                        delegate_data, segments_vector, constant_segment, mutable_segments, 0);
  fbb.Finish(root, fb::ProgramIdentifier());

  // ---- 3. Header, identifier and segments ----------------------------------------------------
  const uint8_t* fb_data = fbb.GetBufferPointer();
  const size_t fb_size = fbb.GetSize();
  std::vector<uint8_t> out;
  const bool with_header = !segment_table.empty() || options_.always_write_extended_header;
  if (!with_header) {
    out.assign(fb_data, fb_data + fb_size);
  } else {
    // The header goes between the identifier and the rest of the flatbuffer. Everything after
    // byte 8 moves by the header's size, which keeps every relative offset and (being a
    // multiple of 16) every alignment; only the root offset at byte 0 grows.
    ExtendedHeader header;
    header.length = ExtendedHeader::kWrittenLength;
    header.program_size = fb_size + ExtendedHeader::kWrittenLength;
    if (!layout.segments.empty() || !raw_segments_.empty()) {
      header.segment_base_offset = round_up(header.program_size, options_.segment_alignment);
      header.segment_data_size = segment_end;
    }
    const auto encoded = header.encode();
    out.reserve(header.segment_base_offset + segment_end);
    out.insert(out.end(), fb_data, fb_data + ExtendedHeader::kOffset);
    out.insert(out.end(), encoded.begin(), encoded.end());
    out.insert(out.end(), fb_data + ExtendedHeader::kOffset, fb_data + fb_size);
    uint32_t root_offset = 0;
    for (int i = 0; i < 4; ++i) root_offset |= static_cast<uint32_t>(out[i]) << (8 * i);
    root_offset += ExtendedHeader::kWrittenLength;
    for (int i = 0; i < 4; ++i) out[i] = static_cast<uint8_t>(root_offset >> (8 * i));
    if (header.segment_base_offset != 0) {
      for (size_t k = 0; k < layout.segments.size(); ++k) {
        pad_to(&out, header.segment_base_offset + segment_offsets[k]);
        out.insert(out.end(), layout.segments[k].begin(), layout.segments[k].end());
      }
      pad_to(&out, header.segment_base_offset);
    }
  }
  for (size_t i = 0; i < 4; ++i) {
    out[4 + i] =
        i < options_.file_identifier.size() ? static_cast<uint8_t>(options_.file_identifier[i]) : 0;
  }
  return out;
}

}  // namespace devplan
