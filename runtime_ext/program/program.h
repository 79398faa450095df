// Program: a loaded, verified program file. Load verifies the flatbuffer, checks the header
// and the segment table, and parses and validates every method into a MethodPlan once; a method
// that fails validation keeps its Error, so the others can still be used and reported.
//
//   Result<FileDataLoader> loader = FileDataLoader::open("device_add_cuda0.pte");
//   Result<Program> program = Program::load(*loader);
//   if (!program.ok()) return program.error();  // InvalidProgram: not a program / truncated ...
//   Result<MethodMeta> meta = program->method_meta("forward");
//   Result<const MethodPlan*> plan = program->method_plan("forward");
//
// Ownership: the Program owns a 16-byte-aligned copy of the file's bytes, or (load_in_place) keeps
// the owner of bytes it reads in place, such as a memory mapping; every span in its MethodPlans
// points into those bytes and stays valid when the Program is moved. A Program is
// immutable after load, so const access from many threads is safe.
#pragma once

#include <runtime_ext/core/result.h>
#include <runtime_ext/core/span.h>
#include <runtime_ext/program/aligned_bytes.h>
#include <runtime_ext/program/data_loader.h>
#include <runtime_ext/program/extended_header.h>
#include <runtime_ext/program/method_meta.h>
#include <runtime_ext/program/method_plan.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace devplan {

class Program {
 public:
  // The file identifier this reader accepts.
  static constexpr char kFileIdentifier[5] = "ET12";

  // Reads all of `loader`'s bytes and validates them. Errors (all InvalidProgram unless the
  // loader fails): "not a program" (file shorter than 8 bytes, or an identifier that is not
  // `ET..`), "incompatible program version" (`ET` + two other characters), a bad extended
  // header or a file shorter than it says, a flatbuffer that fails verification, a segment
  // that points past the segment data, a constant_segment naming a missing segment, two
  // methods with one name. Errors inside one method do not fail the load: see method_status.
  static Result<Program> load(DataLoader& loader);

  // load() over a copy of `bytes`.
  static Result<Program> load_from_bytes(Span<const uint8_t> bytes);

  // load() over `bytes` themselves, without a copy (a memory-mapped file): the Program keeps
  // `owner` alive, and every span it hands out points into `bytes`, which must not change while
  // it lives. Bytes that do not start at a multiple of AlignedBytes::kAlignment are copied
  // instead (the flatbuffer tables need the alignment). Errors as load().
  static Result<Program> load_in_place(Span<const uint8_t> bytes,
                                       std::shared_ptr<const void> owner);

  Program(Program&&) noexcept = default;
  Program& operator=(Program&&) noexcept = default;
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  // The number of methods (valid or not).
  size_t num_methods() const { return methods_.size(); }

  // The name of method `index` (file order); InvalidArgument when out of range.
  Result<const char*> method_name(size_t index) const;

  // Ok when method `name` parsed and validated; its InvalidProgram error when it did not;
  // NotFound when there is no such method.
  Error method_status(const std::string& name) const;

  // The view of method `name`; NotFound when there is no such method, the method's own error
  // when it failed validation.
  Result<MethodMeta> method_meta(const std::string& name) const;

  // The parsed method `name`; errors as method_meta. The pointer lives as long as the Program.
  Result<const MethodPlan*> method_plan(const std::string& name) const;

  // The parsed method at `index`; InvalidArgument when out of range, else as method_plan.
  Result<const MethodPlan*> method_plan_at(size_t index) const;

  // The Program.version field of the file.
  uint32_t version() const { return version_; }

  // The extended header, when the file has one.
  const std::optional<ExtendedHeader>& extended_header() const { return extended_header_; }

  // The bytes of each entry of the file's segment table; an entry that does not lie in the file
  // is empty (it fails what uses it, as in ExecuTorch).
  const std::vector<Span<const uint8_t>>& segments() const { return segments_; }

  // The file, as loaded.
  Span<const uint8_t> bytes() const { return bytes_; }

 private:
  struct MethodEntry {
    std::string name;
    Result<MethodPlan> plan;
  };

  Program() = default;
  // Validates bytes_ and parses every method (the common part of every load).
  static Result<Program> parse(Program program);
  const MethodEntry* find(const std::string& name) const;
  Error not_found(const std::string& name) const;

  AlignedBytes owned_bytes_;           // the copy load() makes (empty for load_in_place)
  std::shared_ptr<const void> owner_;  // what keeps in-place bytes alive
  Span<const uint8_t> bytes_;          // the file: owned_bytes_ or the in-place bytes
  uint32_t version_ = 0;
  std::optional<ExtendedHeader> extended_header_;
  std::vector<Span<const uint8_t>> segments_;
  std::vector<MethodEntry> methods_;
};

}  // namespace devplan
