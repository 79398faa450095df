#include <runtime_ext/writer/plan_rewrite.h>

#include <algorithm>
#include <string>
#include <unordered_map>

#include <runtime_ext/core/alignment.h>
#include <runtime_ext/program/extended_header.h>
#include <runtime_ext/program/program.h>
#include <runtime_ext/schema/program_generated.h>
#include <runtime_ext/writer/flatbuffer_patch.h>

namespace devplan {
namespace {

namespace fb = devplan_flatbuffer;
using writer_internal::field_position;
using writer_internal::put_scalar;

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

// AllocationDetails as this file appends it when an offset field cannot change in place: a
// vtable of its three fields, then the table.
constexpr size_t kAppendedVtableBytes = 12;  // 10 bytes of vtable, padded to 4
constexpr size_t kAppendedTableBytes = 16;   // soffset to the vtable, then three uint32

// Appends an AllocationDetails {memory_id, low, high} at the end of `program` (the flatbuffer
// region, a multiple of 4 long) and points the uoffset at `field` to it: uoffsets point forward,
// and the end lies after every field.
void append_allocation(std::vector<uint8_t>& program, size_t field, uint32_t memory_id,
                       uint64_t offset) {
  const size_t vtable = program.size();
  const size_t table = vtable + kAppendedVtableBytes;
  program.resize(table + kAppendedTableBytes, 0);
  put_scalar<uint16_t>(program, vtable, 10);                       // vtable size: 4 + 3 fields
  put_scalar<uint16_t>(program, vtable + 2, kAppendedTableBytes);  // table size
  put_scalar<uint16_t>(program, vtable + 4, 4);                    // memory_id
  put_scalar<uint16_t>(program, vtable + 6, 8);                    // memory_offset_low
  put_scalar<uint16_t>(program, vtable + 8, 12);                   // memory_offset_high
  put_scalar<int32_t>(program, table, static_cast<int32_t>(table - vtable));
  put_scalar<uint32_t>(program, table + 4, memory_id);
  put_scalar<uint32_t>(program, table + 8, static_cast<uint32_t>(offset));
  put_scalar<uint32_t>(program, table + 12, static_cast<uint32_t>(offset >> 32));
  put_scalar<uint32_t>(program, field, static_cast<uint32_t>(table - field));
}

// Appends a copy of the [long] vector `sizes` (its elements 8-aligned) at the end of `program`
// and points the uoffset at `field` to it; returns where its elements start. `sizes` lies in
// `program`, which this resizes: it is read before.
size_t append_sizes(std::vector<uint8_t>& program, size_t field,
                    const flatbuffers::Vector<int64_t>& sizes) {
  const std::vector<int64_t> values(sizes.begin(), sizes.end());
  size_t length = (program.size() + 3) & ~size_t{3};
  if ((length + 4) % 8 != 0) length += 4;
  const size_t elements = length + 4;
  program.resize(elements + 8 * values.size(), 0);
  put_scalar<uint32_t>(program, length, static_cast<uint32_t>(values.size()));
  for (size_t i = 0; i < values.size(); ++i)
    put_scalar<int64_t>(program, elements + 8 * i, values[i]);
  put_scalar<uint32_t>(program, field, static_cast<uint32_t>(length - field));
  return elements;
}

// How many uoffsets point at each AllocationDetails table and each non_const_buffer_sizes
// vector, by position in the buffer: a table another tensor (or a vector another method) also
// points at cannot change in place for one of them. Writers may share identical tables.
class Sharing {
 public:
  explicit Sharing(const uint8_t* buffer) {
    auto count = [&](const void* object) {
      ++references_[static_cast<const uint8_t*>(object) - buffer];
    };
    for (const fb::ExecutionPlan* plan : *fb::GetProgram(buffer)->execution_plan()) {
      if (plan->non_const_buffer_sizes() != nullptr) count(plan->non_const_buffer_sizes());
      if (plan->values() == nullptr) continue;
      for (const fb::EValue* value : *plan->values()) {
        const fb::Tensor* tensor = value == nullptr ? nullptr : value->val_as_Tensor();
        if (tensor != nullptr && tensor->allocation_info() != nullptr) {
          count(tensor->allocation_info());
        }
      }
    }
  }

  // Whether more than one uoffset points at `object`, which lies in `buffer` (the same bytes as
  // the constructor's, or a copy of them at another address).
  bool shared(const uint8_t* buffer, const void* object) const {
    auto it = references_.find(static_cast<const uint8_t*>(object) - buffer);
    return it != references_.end() && it->second > 1;
  }

 private:
  std::unordered_map<std::ptrdiff_t, size_t> references_;
};

// Applies the edits to `program`, the flatbuffer region of the file: in place where the field is
// stored and no other table shares it, else by appending a new table (or sizes vector) and
// pointing the one edited at it. Returns how many were appended.
size_t apply_edits(std::vector<uint8_t>& program, const std::vector<MethodPlanEdits>& edits) {
  const Sharing sharing(program.data());
  struct Appended {
    size_t field;
    uint32_t memory_id;
    uint64_t offset;
  };
  std::vector<Appended> tables;
  size_t appended_vectors = 0;
  for (size_t m = 0; m < edits.size(); ++m) {
    // Found anew for each method: appending a sizes vector may move the bytes.
    auto* plan = fb::GetMutableProgram(program.data())
                     ->mutable_execution_plan()
                     ->GetMutableObject(static_cast<flatbuffers::uoffset_t>(m));
    for (const auto& [v, offset] : edits[m].tensor_offsets) {
      auto* value =
          plan->mutable_values()->GetMutableObject(static_cast<flatbuffers::uoffset_t>(v));
      auto* tensor = static_cast<fb::Tensor*>(value->mutable_val());
      fb::AllocationDetails* at = tensor->mutable_allocation_info();
      // Setting a field that is not stored succeeds only when the value is its default; the
      // low half is set only once the high half has been.
      if (!sharing.shared(program.data(), at) &&
          at->mutate_memory_offset_high(static_cast<uint32_t>(offset >> 32)) &&
          at->mutate_memory_offset_low(static_cast<uint32_t>(offset))) {
        continue;
      }
      tables.push_back({field_position(program.data(), tensor, fb::Tensor::VT_ALLOCATION_INFO),
                        at->memory_id(), offset});
    }
    if (edits[m].buffer_sizes.empty()) continue;
    flatbuffers::Vector<int64_t>* sizes = plan->mutable_non_const_buffer_sizes();
    if (sharing.shared(program.data(), sizes)) {
      const size_t field =
          field_position(program.data(), plan, fb::ExecutionPlan::VT_NON_CONST_BUFFER_SIZES);
      const size_t elements = append_sizes(program, field, *sizes);
      sizes = reinterpret_cast<flatbuffers::Vector<int64_t>*>(program.data() + elements - 4);
      ++appended_vectors;
    }
    for (const auto& [b, size] : edits[m].buffer_sizes) {
      sizes->Mutate(static_cast<flatbuffers::uoffset_t>(b + 1), static_cast<int64_t>(size));
    }
  }
  program.resize((program.size() + 3) & ~size_t{3}, 0);
  for (const Appended& a : tables) append_allocation(program, a.field, a.memory_id, a.offset);
  return tables.size() + appended_vectors;
}

}  // namespace

Result<RewrittenProgram> rewrite_memory_plan(Span<const uint8_t> file,
                                             const std::vector<MethodPlanEdits>& edits) {
  // Program::load verifies the identifier, the extended header and the flatbuffer.
  DEVPLAN_ASSIGN_OR_RETURN(Program program, Program::load_from_bytes(file));
  DEVPLAN_ASSIGN_OR_RETURN(std::optional<ExtendedHeader> header,
                           ExtendedHeader::parse(file.data(), file.size(), file.size()));
  if (Error e = check_edits(*fb::GetProgram(file.data()), edits); !e.ok()) return e;
  const uint64_t program_size = header ? header->program_size : file.size();
  std::vector<uint8_t> flatbuffer(file.data(), file.data() + program_size);
  RewrittenProgram out;
  out.appended = apply_edits(flatbuffer, edits);
  if (out.appended == 0) {
    out.bytes.assign(file.data(), file.data() + file.size());
    std::copy(flatbuffer.begin(), flatbuffer.end(), out.bytes.begin());
    return out;
  }
  out.bytes = std::move(flatbuffer);
  if (!header) return out;
  // The flatbuffer grew: the header says so, and the segments move after it, keeping their
  // alignment and their bytes.
  ExtendedHeader written = *header;
  written.program_size = out.bytes.size();
  uint64_t segment_bytes = 0;
  if (header->segment_base_offset != 0) {
    segment_bytes = header->segment_data_size != 0 ? header->segment_data_size
                                                   : file.size() - header->segment_base_offset;
    align_up(written.program_size, alignment_of(header->segment_base_offset),
             &written.segment_base_offset);
  }
  const auto encoded = written.encode();
  std::copy(encoded.begin(), encoded.begin() + header->length,
            out.bytes.begin() + ExtendedHeader::kOffset);
  if (segment_bytes != 0) {
    out.bytes.resize(written.segment_base_offset, 0);
    const uint8_t* segments = file.data() + header->segment_base_offset;
    out.bytes.insert(out.bytes.end(), segments, segments + segment_bytes);
  }
  return out;
}

}  // namespace devplan
