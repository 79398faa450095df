// ProgramBuilder, and steps 1 (the data layout) and 3 (the file) of ProgramWriter
// (program_writer.h); step 2 is in program_tables.cpp.
#include <runtime_ext/writer/program_builder.h>

#include <runtime_ext/core/alignment.h>
#include <runtime_ext/program/extended_header.h>
#include <runtime_ext/writer/program_writer.h>

#include <utility>

namespace devplan {
namespace {

namespace fb = devplan_flatbuffer;
using writer_internal::DelegateData;
using writer_internal::ValueData;

uint64_t round_up(uint64_t n, uint64_t alignment) {
  if (alignment <= 1) return n;
  uint64_t out = n;
  if (!align_up(n, alignment, &out)) return n;  // unreachable for in-memory sizes
  return out;
}

void pad_to(std::vector<uint8_t>* bytes, uint64_t size) {
  if (bytes->size() < size) bytes->resize(size, 0);
}

// Appends `data` to `segment` at the next multiple of `alignment`; returns where it starts.
uint64_t append_aligned(std::vector<uint8_t>* segment, Span<const uint8_t> data,
                        uint64_t alignment) {
  const uint64_t start = round_up(segment->size(), alignment);
  pad_to(segment, start);
  segment->insert(segment->end(), data.begin(), data.end());
  return start;
}

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

std::vector<uint8_t> ProgramBuilder::build() const { return ProgramWriter(*this).write(); }

// ---- ProgramWriter --------------------------------------------------------------------------

ProgramWriter::ProgramWriter(const ProgramBuilder& builder)
    : builder_(builder),
      options_(builder.options_),
      segment_constants_(options_.constant_storage ==
                         ProgramBuilderOptions::ConstantStorage::Segment),
      fbb_(4096) {}

std::vector<uint8_t> ProgramWriter::write() {
  lay_out_data();
  write_flatbuffer();
  return assemble_file();
}

// ---- 1. Data layout ---------------------------------------------------------------------------

void ProgramWriter::lay_out_data() {
  std::vector<uint8_t> constant_bytes;
  std::vector<uint8_t> mutable_bytes;
  layout_.constant_offsets.push_back(0);
  layout_.mutable_offsets.push_back(0);
  layout_.inline_constants.emplace_back();
  for (const auto& method : builder_.methods_) {
    layout_.values.push_back(lay_out_values(method->plan_, &constant_bytes, &mutable_bytes));
  }
  if (segment_constants_ && layout_.num_constants > 0) {
    layout_.constant_segment_index = static_cast<uint32_t>(layout_.segments.size());
    layout_.segments.push_back(std::move(constant_bytes));
  }
  if (layout_.mutable_offsets.size() > 1) {  // some initial value
    layout_.has_mutable_segment = true;
    layout_.mutable_segment_index = static_cast<uint32_t>(layout_.segments.size());
    layout_.segments.push_back(std::move(mutable_bytes));
  }
  for (const auto& method : builder_.methods_) {
    layout_.delegates.push_back(lay_out_delegates(*method));
  }
  for (const std::vector<uint8_t>& segment : layout_.segments) {
    const uint64_t start = round_up(layout_.segment_end, options_.segment_alignment);
    layout_.segment_offsets.push_back(start);
    layout_.segment_end = start + segment.size();
  }
}

std::vector<ValueData> ProgramWriter::lay_out_values(const MethodPlan& plan,
                                                     std::vector<uint8_t>* constant_bytes,
                                                     std::vector<uint8_t>* mutable_bytes) {
  std::vector<ValueData> values(plan.values.size());
  for (size_t v = 0; v < plan.values.size(); ++v) {
    const ValueInfo& value = plan.values[v];
    if (value.tag != ValueTag::Tensor) continue;
    const TensorInfo& t = value.tensor;
    if (t.storage == TensorStorage::Constant) {
      ++layout_.num_constants;
      if (segment_constants_) {
        layout_.constant_offsets.push_back(
            append_aligned(constant_bytes, t.data, options_.constant_alignment));
        values[v].data_buffer_idx = static_cast<uint32_t>(layout_.constant_offsets.size() - 1);
      } else {
        layout_.inline_constants.push_back(t.data);
        values[v].data_buffer_idx = static_cast<uint32_t>(layout_.inline_constants.size() - 1);
      }
    } else if (t.storage == TensorStorage::PlannedWithInitial) {
      layout_.mutable_offsets.push_back(
          append_aligned(mutable_bytes, t.data, options_.constant_alignment));
      values[v].data_buffer_idx = static_cast<uint32_t>(layout_.mutable_offsets.size() - 1);
    }
  }
  return values;
}

std::vector<DelegateData> ProgramWriter::lay_out_delegates(const MethodBuilder& method) {
  const MethodPlan& plan = method.plan_;
  std::vector<DelegateData> delegates(plan.delegates.size());
  for (size_t d = 0; d < plan.delegates.size(); ++d) {
    auto raw = method.raw_delegate_references_.find(static_cast<int32_t>(d));
    if (raw != method.raw_delegate_references_.end()) {
      delegates[d].location = static_cast<fb::DataLocation>(raw->second.location);
      delegates[d].index = raw->second.index;
      continue;
    }
    const Span<const uint8_t> data = plan.delegates[d].processed;
    if (method.delegate_locations_[d] == DelegateDataLocation::Segment) {
      delegates[d].location = fb::DataLocation::SEGMENT;
      delegates[d].index = static_cast<uint32_t>(layout_.segments.size());
      layout_.segments.emplace_back(data.begin(), data.end());
    } else {
      delegates[d].location = fb::DataLocation::INLINE;
      delegates[d].index = static_cast<uint32_t>(layout_.inline_delegate_data.size());
      layout_.inline_delegate_data.push_back(data);
    }
  }
  return delegates;
}

// ---- 3. Header, identifier and segments ---------------------------------------------------------

std::vector<uint8_t> ProgramWriter::assemble_file() const {
  const uint8_t* fb_data = fbb_.GetBufferPointer();
  const size_t fb_size = fbb_.GetSize();
  std::vector<uint8_t> out;
  const bool with_header = !segment_table_.empty() || options_.always_write_extended_header;
  if (!with_header) {
    out.assign(fb_data, fb_data + fb_size);
  } else {
    out = with_extended_header(fb_data, fb_size);
  }
  for (size_t i = 0; i < 4; ++i) {
    out[4 + i] =
        i < options_.file_identifier.size() ? static_cast<uint8_t>(options_.file_identifier[i]) : 0;
  }
  return out;
}

std::vector<uint8_t> ProgramWriter::with_extended_header(const uint8_t* fb_data,
                                                         size_t fb_size) const {
  ExtendedHeader header;
  header.length = ExtendedHeader::kWrittenLength;
  header.program_size = fb_size + ExtendedHeader::kWrittenLength;
  if (!layout_.segments.empty() || !builder_.raw_segments_.empty()) {
    header.segment_base_offset = round_up(header.program_size, options_.segment_alignment);
    header.segment_data_size = layout_.segment_end;
  }
  const auto encoded = header.encode();
  std::vector<uint8_t> out;
  out.reserve(header.segment_base_offset + layout_.segment_end);
  out.insert(out.end(), fb_data, fb_data + ExtendedHeader::kOffset);
  out.insert(out.end(), encoded.begin(), encoded.end());
  out.insert(out.end(), fb_data + ExtendedHeader::kOffset, fb_data + fb_size);
  uint32_t root_offset = 0;
  for (int i = 0; i < 4; ++i) root_offset |= static_cast<uint32_t>(out[i]) << (8 * i);
  root_offset += ExtendedHeader::kWrittenLength;
  for (int i = 0; i < 4; ++i) out[i] = static_cast<uint8_t>(root_offset >> (8 * i));
  if (header.segment_base_offset != 0) {
    for (size_t k = 0; k < layout_.segments.size(); ++k) {
      pad_to(&out, header.segment_base_offset + layout_.segment_offsets[k]);
      out.insert(out.end(), layout_.segments[k].begin(), layout_.segments[k].end());
    }
    pad_to(&out, header.segment_base_offset);
  }
  return out;
}

}  // namespace devplan
