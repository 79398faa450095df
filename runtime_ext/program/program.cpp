#include <runtime_ext/program/buffer_data_loader.h>
#include <runtime_ext/program/plan_parser.h>
#include <runtime_ext/program/program.h>
#include <runtime_ext/schema/program_generated.h>

#include <algorithm>
#include <cstring>
#include <utility>

namespace devplan {
namespace {

namespace fb = devplan_flatbuffer;

constexpr size_t kIdentifierOffset = 4;
constexpr size_t kMinimumFileSize = 8;

Error invalid(const std::string& message) { return Error(ErrorCode::InvalidProgram, message); }

// The four identifier bytes, printable characters as they are and others as \xNN.
std::string printable_identifier(const uint8_t* id) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 4; ++i) {
    const uint8_t c = id[i];
    if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'') {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string count(size_t n, const char* noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

}  // namespace

constexpr char Program::kFileIdentifier[5];

Result<Program> Program::load_from_bytes(Span<const uint8_t> bytes) {
  BufferDataLoader loader(bytes);
  return load(loader);
}

Result<Program> Program::load(DataLoader& loader) {
  DEVPLAN_ASSIGN_OR_RETURN(const size_t file_size, loader.size());
  if (file_size < kMinimumFileSize) {
    return invalid("not a program: the file has " + count(file_size, "byte") +
                   ", fewer than the 8-byte header");
  }
  Program program;
  DEVPLAN_ASSIGN_OR_RETURN(program.owned_bytes_, loader.load(0, file_size));
  program.bytes_ = program.owned_bytes_.span();
  return parse(std::move(program));
}

Result<Program> Program::load_in_place(Span<const uint8_t> bytes,
                                       std::shared_ptr<const void> owner) {
  if (reinterpret_cast<uintptr_t>(bytes.data()) % AlignedBytes::kAlignment != 0) {
    return load_from_bytes(bytes);  // the reader needs aligned tables: take an aligned copy
  }
  if (bytes.size() < kMinimumFileSize) {
    return invalid("not a program: the file has " + count(bytes.size(), "byte") +
                   ", fewer than the 8-byte header");
  }
  Program program;
  program.bytes_ = bytes;
  program.owner_ = std::move(owner);
  return parse(std::move(program));
}

Result<Program> Program::parse(Program program) {
  const uint8_t* data = program.bytes_.data();
  const size_t file_size = program.bytes_.size();

  const uint8_t* id = data + kIdentifierOffset;
  if (std::memcmp(id, kFileIdentifier, 4) != 0) {
    if (id[0] == 'E' && id[1] == 'T') {
      return invalid("incompatible program version: file identifier '" + printable_identifier(id) +
                     "', this reader reads '" + kFileIdentifier + "'");
    }
    if (std::memcmp(id, "FT01", 4) == 0) {
      // ExecuTorch's external data file (FlatTensor): a program's constants, kept beside it.
      return invalid(
          "not a program: a .ptd data file (FlatTensor, file identifier 'FT01') that "
          "holds constants of a program; give the program (.pte) that uses it, with "
          "--data FILE.ptd");
    }
    return invalid("not a program: file identifier is '" + printable_identifier(id) +
                   "' (expected '" + kFileIdentifier + "')");
  }

  DEVPLAN_ASSIGN_OR_RETURN(program.extended_header_,
                           ExtendedHeader::parse(data, file_size, file_size));
  const uint64_t program_size =
      program.extended_header_ ? program.extended_header_->program_size : file_size;
  if (program_size >= FLATBUFFERS_MAX_BUFFER_SIZE) {
    return invalid("program data of " + std::to_string(program_size) +
                   " bytes is larger than a flatbuffer can be (" +
                   std::to_string(static_cast<uint64_t>(FLATBUFFERS_MAX_BUFFER_SIZE) - 1) +
                   " bytes)");
  }

  // ExecuTorch does not verify (Minimal checks the root offset); devplan must, to read an
  // untrusted file safely, but with limits no written program reaches: the schema has no
  // recursion (depth stays far below 64), and a program of N bytes holds fewer than N tables
  // unless tables are shared.
  flatbuffers::Verifier::Options options;
  options.max_tables = std::max<flatbuffers::uoffset_t>(
      options.max_tables, static_cast<flatbuffers::uoffset_t>(program_size));
  flatbuffers::Verifier verifier(data, static_cast<size_t>(program_size), options);
  if (!fb::VerifyProgramBuffer(verifier)) {
    return invalid("the program data (" + std::to_string(program_size) +
                   " bytes) failed flatbuffer verification: truncated or corrupt");
  }
  const fb::Program* root = fb::GetProgram(data);
  program.version_ = root->version();

  // Segment data: from segment_base_offset to the end of the file, where ExecuTorch's loader
  // reads a segment when something uses it (segment_data_size only checks the file's size).
  // Without an extended header the base is 0: ExecuTorch still reads the constant segment there,
  // but no other segment.
  const uint64_t segment_base =
      program.extended_header_ ? program.extended_header_->segment_base_offset : 0;
  const bool base_in_file = segment_base <= file_size;
  const uint64_t segment_region = base_in_file ? file_size - segment_base : 0;
  internal::ProgramContext context;
  context.program = root;
  context.has_segment_data = segment_base != 0;
  context.segment_base = segment_base;
  if (base_in_file) {
    context.segment_data = Span<const uint8_t>(data + segment_base, segment_region);
  }
  if (root->segments() != nullptr) {
    for (flatbuffers::uoffset_t k = 0; k < root->segments()->size(); ++k) {
      const fb::DataSegment* segment = root->segments()->Get(k);
      const std::string where = "segment " + std::to_string(k) + ": ";
      if (segment == nullptr) return invalid(where + "missing");
      const uint64_t offset = segment->offset();
      const uint64_t size = segment->size();
      context.segment_offsets.push_back(offset);
      if (!base_in_file) {
        context.segment_errors.push_back(
            where + "segment_base_offset " + std::to_string(segment_base) +
            " is past the end of the file (" + count(file_size, "byte") + ")");
        context.segments.emplace_back();
      } else if (offset > segment_region || size > segment_region - offset) {
        context.segment_errors.push_back(
            where + std::to_string(size) + " bytes at offset " + std::to_string(offset) +
            " run past the end of the file (segment data from offset " +
            std::to_string(segment_base) + ", " + count(segment_region, "byte") + ")");
        context.segments.emplace_back();
      } else {
        context.segment_errors.emplace_back();
        context.segments.emplace_back(data + segment_base + offset, static_cast<size_t>(size));
      }
    }
  }
  const fb::SubsegmentOffsets* constants = root->constant_segment();
  if (constants != nullptr && !internal::elements_aligned(constants->offsets())) {
    return invalid("constant_segment: offsets are misaligned");
  }
  if (root->mutable_data_segments() != nullptr) {
    for (flatbuffers::uoffset_t k = 0; k < root->mutable_data_segments()->size(); ++k) {
      const fb::SubsegmentOffsets* entry = root->mutable_data_segments()->Get(k);
      if (entry != nullptr && !internal::elements_aligned(entry->offsets())) {
        return invalid("mutable_data_segments " + std::to_string(k) + ": offsets are misaligned");
      }
    }
  }
  if (constants != nullptr && constants->offsets() != nullptr && constants->offsets()->size() > 1) {
    // ExecuTorch loads the constant segment with the program.
    if (constants->segment_index() >= context.segments.size()) {
      return invalid("constant_segment: segment_index " +
                     std::to_string(constants->segment_index()) + " is out of range (" +
                     count(context.segments.size(), "segment") + ")");
    }
    const std::string& bad = context.segment_errors[constants->segment_index()];
    if (!bad.empty()) return invalid("constant_segment: " + bad);
  }

  const auto* plans = root->execution_plan();
  const size_t num_plans = plans == nullptr ? 0 : plans->size();
  for (size_t i = 0; i < num_plans; ++i) {
    const fb::ExecutionPlan* plan = plans->Get(static_cast<flatbuffers::uoffset_t>(i));
    // Two methods may share a name: as in ExecuTorch, a lookup by name finds the first.
    std::string name = (plan != nullptr && plan->name() != nullptr) ? plan->name()->str() : "";
    program.methods_.push_back(
        MethodEntry{std::move(name), internal::parse_method_plan(context, plan, i)});
  }
  program.segments_ = std::move(context.segments);
  return program;
}

const Program::MethodEntry* Program::find(const std::string& name) const {
  for (const MethodEntry& entry : methods_) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

Error Program::not_found(const std::string& name) const {
  std::string names;
  for (const MethodEntry& entry : methods_) {
    if (!names.empty()) names += ", ";
    names += "'" + entry.name + "'";
  }
  return Error(ErrorCode::NotFound, "no method named '" + name + "' (the program has " +
                                        (names.empty() ? std::string("no methods") : names) + ")");
}

Result<const char*> Program::method_name(size_t index) const {
  if (index >= methods_.size()) {
    return Error(ErrorCode::InvalidArgument, "method index " + std::to_string(index) +
                                                 " is out of range (the program has " +
                                                 count(methods_.size(), "method") + ")");
  }
  return methods_[index].name.c_str();
}

Error Program::method_status(const std::string& name) const {
  const MethodEntry* entry = find(name);
  if (entry == nullptr) return not_found(name);
  return entry->plan.ok() ? Error::success() : entry->plan.error();
}

Result<MethodMeta> Program::method_meta(const std::string& name) const {
  DEVPLAN_ASSIGN_OR_RETURN(const MethodPlan* plan, method_plan(name));
  return MethodMeta(*plan);
}

Result<const MethodPlan*> Program::method_plan(const std::string& name) const {
  const MethodEntry* entry = find(name);
  if (entry == nullptr) return not_found(name);
  if (!entry->plan.ok()) return entry->plan.error();
  return &entry->plan.value();
}

Result<const MethodPlan*> Program::method_plan_at(size_t index) const {
  if (index >= methods_.size()) {
    return Error(ErrorCode::InvalidArgument, "method index " + std::to_string(index) +
                                                 " is out of range (the program has " +
                                                 count(methods_.size(), "method") + ")");
  }
  const MethodEntry& entry = methods_[index];
  if (!entry.plan.ok()) return entry.plan.error();
  return &entry.plan.value();
}

}  // namespace devplan
