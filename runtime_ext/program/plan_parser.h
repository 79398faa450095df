// Internal to runtime_ext/program: turns one verified ExecutionPlan into a validated
// MethodPlan. Program::load is its only user; include it nowhere else.
#pragma once

#include <runtime_ext/core/result.h>
#include <runtime_ext/core/span.h>
#include <runtime_ext/program/method_plan.h>
#include <runtime_ext/schema/program_generated.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace devplan::internal {

// What a method may refer to outside itself. `program` has passed the flatbuffer verifier;
// `segments` holds the bytes of each entry of its segment table where they lie in the file,
// and `segment_errors` says why not for the others ("" for a good one): as in ExecuTorch, a
// segment is checked when something uses it. constant_segment (when used) is known to be good.
struct ProgramContext {
  const devplan_flatbuffer::Program* program = nullptr;
  std::vector<Span<const uint8_t>> segments;
  std::vector<std::string> segment_errors;
  // From segment_base_offset to the end of the file (empty when the base is past it), and each
  // segment's offset in it: ExecuTorch reads a mutable subsegment by file offset alone.
  Span<const uint8_t> segment_data;
  uint64_t segment_base = 0;
  std::vector<uint64_t> segment_offsets;
  // False without an extended header or with a segment_base_offset of 0: ExecuTorch then loads
  // only the constant segment (from the file's start), no delegate or mutable data.
  bool has_segment_data = false;
};

// True when the elements of `v` (absent or empty counts as aligned) sit at an address aligned
// for T. The flatbuffer verifier checks only a vector's 4-byte length prefix, so a corrupt file
// can hold a misaligned vector of 8-byte elements; readers reject those instead of reading
// them. An empty vector has nothing to read, and flatbuffers writers do not align it.
template <typename T>
bool elements_aligned(const flatbuffers::Vector<T>* v) {
  return v == nullptr || v->size() == 0 || reinterpret_cast<uintptr_t>(v->data()) % alignof(T) == 0;
}

// "method 'forward'", or "method 2" when the plan has no name.
std::string method_label(const devplan_flatbuffer::ExecutionPlan* plan, size_t index);

// The MethodPlan of `plan` (method number `index`), with every index range-checked; or
// InvalidProgram whose message starts with method_label() and names the entry at fault.
Result<MethodPlan> parse_method_plan(const ProgramContext& context,
                                     const devplan_flatbuffer::ExecutionPlan* plan, size_t index);

}  // namespace devplan::internal
