// Internal to runtime_ext/writer: ProgramWriter, which ProgramBuilder::build runs. It writes a
// program in three steps: (1) the data layout (where constants, initial values and delegate
// data go, and the segments), (2) the flatbuffer (every method's tables, then the program's),
// (3) the file (the extended header, the file identifier and the segments after the
// flatbuffer). Steps 1 and 3 are in program_builder.cpp, step 2 in program_tables.cpp. Include
// it nowhere else.
#pragma once

#include <runtime_ext/schema/program_generated.h>
#include <runtime_ext/writer/program_builder.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace devplan {
namespace writer_internal {

template <typename T>
using OffsetVector = flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<T>>>;

// Where each value's data goes, decided before any table is written.
struct ValueData {
  uint32_t data_buffer_idx = 0;
};

struct DelegateData {
  devplan_flatbuffer::DataLocation location = devplan_flatbuffer::DataLocation::INLINE;
  uint32_t index = 0;
};

// The program-wide data layout: constants, initial values, delegate data, segments.
struct Layout {
  std::vector<std::vector<ValueData>> values;        // [method][value]
  std::vector<std::vector<DelegateData>> delegates;  // [method][delegate]

  // Segment contents in segment-table order, and where each starts relative to the segment
  // base (aligned to segment_alignment); segment_end is where the last one ends.
  std::vector<std::vector<uint8_t>> segments;

  std::vector<uint64_t> segment_offsets;
  uint64_t segment_end = 0;
  size_t num_constants = 0;
  uint32_t constant_segment_index = 0;
  std::vector<uint64_t> constant_offsets;             // segment mode
  std::vector<Span<const uint8_t>> inline_constants;  // inline mode; [0] is the placeholder

  bool has_mutable_segment = false;
  uint32_t mutable_segment_index = 0;
  std::vector<uint64_t> mutable_offsets;
  std::vector<Span<const uint8_t>> inline_delegate_data;
};

}  // namespace writer_internal

// A friend of ProgramBuilder and MethodBuilder: it reads their plans, options and raw
// overrides. One writer writes one program.
class ProgramWriter {
 public:
  explicit ProgramWriter(const ProgramBuilder& builder);

  // The program file.
  std::vector<uint8_t> write();

 private:
  using RawSegment = ProgramBuilder::RawSegment;
  using ValueData = writer_internal::ValueData;
  using DelegateData = writer_internal::DelegateData;
  template <typename T>
  using Offset = flatbuffers::Offset<T>;
  template <typename T>
  using OffsetVector = writer_internal::OffsetVector<T>;

  // ---- 1. Data layout (program_builder.cpp) ------------------------------------------------

  void lay_out_data();

  // The data index of each value of `plan`: constants go to the constant segment (or the
  // inline constant_buffer), initial values of planned tensors to the mutable data segment.
  std::vector<ValueData> lay_out_values(const MethodPlan& plan,
                                        std::vector<uint8_t>* constant_bytes,
                                        std::vector<uint8_t>* mutable_bytes);

  // Where each delegate's processed data goes: its raw reference, a segment of its own, or an
  // entry of backend_delegate_data.
  std::vector<DelegateData> lay_out_delegates(const MethodBuilder& method);

  // ---- 2. The flatbuffer (program_tables.cpp) ----------------------------------------------

  void write_flatbuffer();
  Offset<devplan_flatbuffer::ExecutionPlan> write_method(size_t m);

  // Value `v` of method `m`.
  Offset<devplan_flatbuffer::EValue> write_value(const MethodBuilder& method, size_t m, size_t v);

  // Tensor value `v` of method `m`, with its raw fields where the method sets them.
  Offset<devplan_flatbuffer::Tensor> write_tensor(const MethodBuilder& method, size_t m, size_t v);

  std::vector<Offset<devplan_flatbuffer::Chain>> write_chains(const MethodPlan& plan);
  Offset<devplan_flatbuffer::Instruction> write_instruction(const InstructionInfo& ins);
  std::vector<Offset<devplan_flatbuffer::BackendDelegate>> write_delegates(
      const MethodBuilder& method, size_t m);

  // non_const_buffer_device: the raw list when the method sets one, else one entry per buffer
  // not on cpu:0 (none at all when every buffer is).
  OffsetVector<devplan_flatbuffer::NonConstBufferDevice> write_buffer_devices(
      const MethodBuilder& method);

  OffsetVector<devplan_flatbuffer::Buffer> write_constant_buffer();
  OffsetVector<devplan_flatbuffer::BackendDelegateInlineData> write_inline_delegate_data();

  // The segment table: the builder's own segments, then the raw entries. Kept in segment_table_
  // for step 3 (a file with segments gets the extended header).
  OffsetVector<devplan_flatbuffer::DataSegment> write_segment_table();

  // ---- 3. Header, identifier and segments (program_builder.cpp) ----------------------------

  std::vector<uint8_t> assemble_file() const;

  // The flatbuffer with the extended header, then the segments. The header goes between the
  // identifier and the rest of the flatbuffer. Everything after byte 8 moves by the header's
  // size, which keeps every relative offset and (being a multiple of 16) every alignment; only
  // the root offset at byte 0 grows.
  std::vector<uint8_t> with_extended_header(const uint8_t* fb_data, size_t fb_size) const;

  const ProgramBuilder& builder_;
  const ProgramBuilderOptions& options_;
  const bool segment_constants_;
  writer_internal::Layout layout_;
  flatbuffers::FlatBufferBuilder fbb_;
  std::vector<RawSegment> segment_table_;  // filled by write_segment_table, read by step 3
};

}  // namespace devplan
