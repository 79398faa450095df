// ProgramBuilder: writes complete program files (the `.pte` layout, readable by Program::load,
// by flatc with runtime_ext/schema/program.fbs, and by ExecuTorch's own tools).
//
//   ProgramBuilder builder;
//   MethodBuilder& m = builder.add_method("forward");
//   ... add buffers, values, operators, instructions (method_builder.h) ...
//   std::vector<uint8_t> bytes = builder.build();
//   Result<Program> program = Program::load_from_bytes(bytes);
//
// What it writes:
// - non_const_buffer_sizes = [0, size of buffer 0, size of buffer 1, ...]; a method with no
//   planned buffers gets [0] (entry 0 is always written, as ExecuTorch's emitter does).
// - non_const_buffer_device only when some buffer is not on cpu:0: one entry
//   {buffer_idx = user index + 1, type, index} per such buffer, in buffer order.
// - What ExecuTorch's current exporter writes (and its 1.5.1 runtime requires): a
//   constant_segment whose offsets start with the placeholder 0, even with no constants (then
//   offsets = [0], segment_index 0, no constant segment), and an empty constant_buffer.
//   Constant k of the program, counted over all methods from 1, starts at offsets[k] of the
//   constant segment, each aligned to `constant_alignment`. ConstantStorage::InlineBuffer
//   writes the old layout instead (constants in constant_buffer, entry 0 an empty
//   placeholder, no constant_segment), which old files have and 1.5.1 rejects. Initial values of
//   planned tensors go to one mutable data segment described by mutable_data_segments[0] the same
//   way. Delegate data goes to its own segment (the default, as the exporter does) or to
//   backend_delegate_data (inline).
// - The extended header (eh00, length 32) only when the segment table is not empty (or
//   always_write_extended_header): segments follow the flatbuffer data, starting at
//   program_size rounded up to segment_alignment, each aligned to segment_alignment.
// - Scalars equal to their schema default are omitted, as flatbuffers does by default.
//
// The builder checks nothing (see method_builder.h for writing invalid programs on purpose).
// It is movable, not copyable; references returned by add_method stay valid across moves.
#pragma once

#include <runtime_ext/program/method_plan.h>
#include <runtime_ext/writer/method_builder.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace devplan {

struct ProgramBuilderOptions {
  enum class ConstantStorage : uint8_t {
    Segment,       // constant_segment + a segment (what current ExecuTorch writes)
    InlineBuffer,  // the deprecated inline constant_buffer
  };
  ConstantStorage constant_storage = ConstantStorage::Segment;
  uint64_t segment_alignment = 16;   // a power of two
  uint64_t constant_alignment = 16;  // a power of two; within the constant segment
  bool always_write_extended_header = false;
  // Written at bytes 4..7 (padded with '\0' or cut to 4 characters): "ET11" makes a program of
  // an incompatible version, for tests.
  std::string file_identifier = "ET12";
  uint32_t version = 0;
};

class ProgramBuilder {
 public:
  explicit ProgramBuilder(ProgramBuilderOptions options = {});

  ProgramBuilder(ProgramBuilder&&) noexcept = default;
  ProgramBuilder& operator=(ProgramBuilder&&) noexcept = default;
  ProgramBuilder(const ProgramBuilder&) = delete;
  ProgramBuilder& operator=(const ProgramBuilder&) = delete;

  // Appends a method named `name` and returns it for filling in.
  MethodBuilder& add_method(std::string name);
  // Appends a method that writes `plan` as it is (its spans are copied).
  MethodBuilder& add_method(const MethodPlan& plan);

  size_t num_methods() const { return methods_.size(); }
  MethodBuilder& method(size_t index) { return *methods_[index]; }
  const MethodBuilder& method(size_t index) const { return *methods_[index]; }

  // Appends an entry {offset, size} to the segment table after the builder's own segments,
  // with no data behind it (for programs whose segment table points past the end).
  void add_raw_segment(uint64_t offset, uint64_t size);

  const ProgramBuilderOptions& options() const { return options_; }

  // The program file.
  std::vector<uint8_t> build() const;

 private:
  friend class ProgramWriter;  // program_builder.cpp: build()'s steps

  struct RawSegment {
    uint64_t offset;
    uint64_t size;
  };

  ProgramBuilderOptions options_;
  std::vector<std::unique_ptr<MethodBuilder>> methods_;
  std::vector<RawSegment> raw_segments_;
};

}  // namespace devplan
