// Rewriting the memory plan of an existing program file without losing anything else (ahead of
// time: `devplan replan`). Only planned tensors' offsets (allocation_info.memory_offset_low and
// memory_offset_high) and planned buffer sizes (non_const_buffer_sizes) change; every other
// field, known to the schema or not, and the segment bytes stay.
//
//   std::vector<MethodPlanEdits> edits(program.num_methods());
//   edits[0].tensor_offsets.push_back({value_index, 4096});
//   edits[0].buffer_sizes.push_back({0, 8192});          // user-facing buffer 0
//   Result<RewrittenProgram> r = rewrite_memory_plan(file_bytes, edits);
//
// Each edit is made where the field is stored, so the result is the input byte for byte but for
// those fields. Two kinds of field cannot change in place: one the exporter left out because it
// held its default (an offset of 0), and one in a table that other tensors share (a writer may
// store identical AllocationDetails once; a sizes vector shared by two methods likewise). Then a
// new AllocationDetails table (memory_id and both offset halves), or a copy of the sizes vector,
// is appended to the end of the flatbuffer data and the one edited points to it; the old one
// stays for the others, or unused. The flatbuffer grows by 28 bytes per such tensor; the extended
// header's program_size and segment_base_offset follow, and the segments are copied byte for byte
// after it at the original's alignment.
//
// Why not unpack into the object API's ProgramT and pack again: packing leaves out empty
// vectors, and ExecuTorch rejects an ExecutionPlan whose (empty) `delegates` vector is absent
// ("Missing delegates field").
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include <runtime_ext/core/result.h>
#include <runtime_ext/core/span.h>

namespace devplan {

// The edits to one method, in the file's method order.
struct MethodPlanEdits {
  std::vector<std::pair<int32_t, uint64_t>> tensor_offsets;  // (value index, new byte offset)
  std::vector<std::pair<size_t, uint64_t>> buffer_sizes;     // (user-facing buffer, new size)
};

struct RewrittenProgram {
  std::vector<uint8_t> bytes;
  // Tables and vectors appended (see above). 0: the file's size and headers are unchanged and
  // only the edited fields differ.
  size_t appended = 0;
};

// Errors: InvalidProgram when `file` is not a verifiable program (naming what is wrong);
// InvalidArgument when an edit names a method, value or buffer the program does not have, or a
// value that is not a planned tensor.
Result<RewrittenProgram> rewrite_memory_plan(Span<const uint8_t> file,
                                             const std::vector<MethodPlanEdits>& edits);

}  // namespace devplan
