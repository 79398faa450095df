#include <runtime_ext/writer/plan_rewrite.h>

#include <algorithm>
#include <cstring>
#include <string>

#include <runtime_ext/core/alignment.h>
#include <runtime_ext/program/extended_header.h>
#include <runtime_ext/program/program.h>
#include <runtime_ext/schema/program_generated.h>

namespace devplan {
namespace {

namespace fb = devplan_flatbuffer;

// The segments keep the alignment the original's base had: the largest power of two dividing
// it (the exporter aligns segments to 128 by default), between 16 and 64 KiB.
constexpr uint64_t kMinSegmentAlignment = 16;
constexpr uint64_t kMaxSegmentAlignment = uint64_t{64} * 1024;

uint64_t alignment_of(uint64_t offset) {
  uint64_t alignment = kMinSegmentAlignment;
  while (alignment < kMaxSegmentAlignment && offset % (alignment * 2) == 0) alignment *= 2;
  return alignment;
}

Error bad_edit(size_t method, const std::string& what) {
  return Error(ErrorCode::InvalidArgument,
               "plan edit for method " + std::to_string(method) + ": " + what);
}

// Checks every edit against the program before anything is written.
Error check_edits(const fb::Program& program, const std::vector<MethodPlanEdits>& edits) {
  const auto* plans = program.execution_plan();
  const size_t num_methods = plans == nullptr ? 0 : plans->size();
  if (edits.size() > num_methods) {
    return bad_edit(edits.size() - 1,
                    "the program has " + std::to_string(num_methods) + " methods");
  }
  for (size_t m = 0; m < edits.size(); ++m) {
    const fb::ExecutionPlan* plan = plans->Get(static_cast<flatbuffers::uoffset_t>(m));
    const size_t num_values = plan->values() == nullptr ? 0 : plan->values()->size();
    for (const auto& [v, offset] : edits[m].tensor_offsets) {
      if (v < 0 || static_cast<size_t>(v) >= num_values) {
        return bad_edit(m, "value " + std::to_string(v) + " is out of range (" +
                               std::to_string(num_values) + " values)");
      }
      const fb::EValue* value = plan->values()->Get(static_cast<flatbuffers::uoffset_t>(v));
      const fb::Tensor* tensor = value == nullptr ? nullptr : value->val_as_Tensor();
      if (tensor == nullptr || tensor->allocation_info() == nullptr) {
        return bad_edit(m, "value " + std::to_string(v) + " is not a planned tensor");
      }
    }
    const size_t num_sizes =
        plan->non_const_buffer_sizes() == nullptr ? 0 : plan->non_const_buffer_sizes()->size();
    for (const auto& [b, size] : edits[m].buffer_sizes) {
      if (b + 1 >= num_sizes) {
        return bad_edit(m, "buffer " + std::to_string(b) + " is out of range (" +
                               std::to_string(num_sizes == 0 ? 0 : num_sizes - 1) + " buffers)");
      }
      if (size > static_cast<uint64_t>(INT64_MAX)) {
        return bad_edit(m, "buffer size " + std::to_string(size) + " does not fit a long");
      }
    }
  }
  return Error::success();
}

// AllocationDetails as this file appends it when an offset field the exporter left out (it held
// the default 0) must take another value: a vtable of its three fields, then the table.
constexpr size_t kAppendedVtableBytes = 12;  // 10 bytes of vtable, padded to 4
constexpr size_t kAppendedTableBytes = 16;   // soffset to the vtable, then three uint32

template <typename T>
void put(std::vector<uint8_t>& bytes, size_t at, T value) {
  std::memcpy(bytes.data() + at, &value,
              sizeof(T));  // flatbuffers are little-endian, as is the host
}

template <typename T>
T get(const uint8_t* at) {
  T value;
  std::memcpy(&value, at, sizeof(T));
  return value;
}

// Where the Tensor table at `tensor` stores its allocation_info offset, from the file's start.
size_t allocation_info_field(const uint8_t* file, const uint8_t* tensor) {
  const uint8_t* vtable = tensor - get<int32_t>(tensor);
  const uint16_t field = get<uint16_t>(vtable + fb::Tensor::VT_ALLOCATION_INFO);
  return static_cast<size_t>(tensor + field - file);
}

// Appends an AllocationDetails {memory_id, low, high} at the end of `program` (the flatbuffer
// region, a multiple of 4 long) and points the uoffset at `field` to it: uoffsets point forward,
// and the end lies after every field.
void append_allocation(std::vector<uint8_t>& program, size_t field, uint32_t memory_id,
                       uint64_t offset) {
  const size_t vtable = program.size();
  const size_t table = vtable + kAppendedVtableBytes;
  program.resize(table + kAppendedTableBytes, 0);
  put<uint16_t>(program, vtable, 10);                       // vtable size: 4 + 3 fields
  put<uint16_t>(program, vtable + 2, kAppendedTableBytes);  // table size
  put<uint16_t>(program, vtable + 4, 4);                    // memory_id
  put<uint16_t>(program, vtable + 6, 8);                    // memory_offset_low
  put<uint16_t>(program, vtable + 8, 12);                   // memory_offset_high
  put<int32_t>(program, table, static_cast<int32_t>(table - vtable));
  put<uint32_t>(program, table + 4, memory_id);
  put<uint32_t>(program, table + 8, static_cast<uint32_t>(offset));
  put<uint32_t>(program, table + 12, static_cast<uint32_t>(offset >> 32));
  put<uint32_t>(program, field, static_cast<uint32_t>(table - field));
}

// Applies the edits to `program`, the flatbuffer region of the file: in place where the field is
// stored, else by appending a new AllocationDetails. Returns how many were appended.
size_t apply_edits(std::vector<uint8_t>& program, const std::vector<MethodPlanEdits>& edits) {
  struct Appended {
    size_t field;
    uint32_t memory_id;
    uint64_t offset;
  };
  std::vector<Appended> appended;
  {
    fb::Program* root = fb::GetMutableProgram(program.data());
    auto* plans = root->mutable_execution_plan();
    for (size_t m = 0; m < edits.size(); ++m) {
      fb::ExecutionPlan* plan = plans->GetMutableObject(static_cast<flatbuffers::uoffset_t>(m));
      for (const auto& [v, offset] : edits[m].tensor_offsets) {
        auto* value =
            plan->mutable_values()->GetMutableObject(static_cast<flatbuffers::uoffset_t>(v));
        auto* tensor = static_cast<fb::Tensor*>(value->mutable_val());
        fb::AllocationDetails* at = tensor->mutable_allocation_info();
        // Mutating a field that is not stored succeeds only when the value is its default.
        const uint64_t old =
            at->memory_offset_low() | (static_cast<uint64_t>(at->memory_offset_high()) << 32);
        if (at->mutate_memory_offset_low(static_cast<uint32_t>(offset)) &&
            at->mutate_memory_offset_high(static_cast<uint32_t>(offset >> 32))) {
          continue;
        }
        at->mutate_memory_offset_low(static_cast<uint32_t>(old));  // undo a half-done edit
        appended.push_back(
            {allocation_info_field(program.data(), reinterpret_cast<const uint8_t*>(tensor)),
             at->memory_id(), offset});
      }
      for (const auto& [b, size] : edits[m].buffer_sizes) {
        plan->mutable_non_const_buffer_sizes()->Mutate(static_cast<flatbuffers::uoffset_t>(b + 1),
                                                       static_cast<int64_t>(size));
      }
    }
  }
  program.resize((program.size() + 3) & ~size_t{3}, 0);
  for (const Appended& a : appended) append_allocation(program, a.field, a.memory_id, a.offset);
  return appended.size();
}

}  // namespace

const char* rewrite_kind_name(RewriteKind kind) {
  return kind == RewriteKind::InPlace ? "in place" : "in place, with appended allocation tables";
}

Result<RewrittenProgram> rewrite_memory_plan(Span<const uint8_t> file,
                                             const std::vector<MethodPlanEdits>& edits) {
  // Program::load verifies the identifier, the extended header and the flatbuffer.
  DEVPLAN_ASSIGN_OR_RETURN(Program program, Program::load_from_bytes(file));
  DEVPLAN_ASSIGN_OR_RETURN(std::optional<ExtendedHeader> header,
                           ExtendedHeader::parse(file.data(), file.size(), file.size()));
  const fb::Program* root = fb::GetProgram(file.data());
  if (Error e = check_edits(*root, edits); !e.ok()) return e;
  const uint64_t program_size = header ? header->program_size : file.size();
  std::vector<uint8_t> flatbuffer(file.data(), file.data() + program_size);
  RewrittenProgram out;
  out.appended_tables = apply_edits(flatbuffer, edits);
  if (out.appended_tables == 0) {
    out.bytes.assign(file.data(), file.data() + file.size());
    std::copy(flatbuffer.begin(), flatbuffer.begin() + static_cast<std::ptrdiff_t>(program_size),
              out.bytes.begin());
    return out;
  }
  out.kind = RewriteKind::Appended;
  out.bytes = std::move(flatbuffer);
  if (!header) return out;
  // The flatbuffer grew: the header says so, and the segments move after it, keeping their
  // alignment and their bytes.
  ExtendedHeader written = *header;
  written.program_size = out.bytes.size();
  if (header->segment_base_offset != 0) {
    const uint64_t segment_bytes = header->segment_data_size != 0
                                       ? header->segment_data_size
                                       : file.size() - header->segment_base_offset;
    align_up(written.program_size, alignment_of(header->segment_base_offset),
             &written.segment_base_offset);
    const auto encoded = written.encode();
    std::copy(encoded.begin(), encoded.begin() + header->length, out.bytes.begin() + 8);
    out.bytes.resize(written.segment_base_offset, 0);
    const uint8_t* segments = file.data() + header->segment_base_offset;
    out.bytes.insert(out.bytes.end(), segments, segments + segment_bytes);
  } else {
    const auto encoded = written.encode();
    std::copy(encoded.begin(), encoded.begin() + header->length, out.bytes.begin() + 8);
  }
  return out;
}

}  // namespace devplan
