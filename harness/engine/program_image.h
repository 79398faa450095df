// ProgramImage: the bytes of a program file as the harness hands them to an engine, read in
// place: a memory-mapped file (ProgramImage::map), or bytes the image owns (a program rewritten
// in memory, a test's program). Copies share the bytes; they stay valid while any copy, or any
// Program loaded over them with program(), lives.
//
//   Result<ProgramImage> image = ProgramImage::map("model.pte");   // no read, no copy
//   Result<Program> program = image->program();                    // parsed in place
//   open_session(RuntimeKind::Executorch, *image, env, options);   // ExecuTorch reads it too
//
// A bundled program (`.bpte`, runtime_ext/program/bundled_program.h) is an image of the program
// inside it: bytes() are that program's, bundled() has the test sets and file_bytes() the whole
// file, so every command that takes a program takes a bundled one.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <runtime_ext/core/result.h>
#include <runtime_ext/core/span.h>
#include <runtime_ext/program/bundled_program.h>
#include <runtime_ext/program/program.h>

namespace devplan::harness {

class ProgramImage {
 public:
  // An image of no bytes.
  ProgramImage() = default;
  // An image that owns `bytes` (implicit: call sites that hold bytes pass them as they are).
  // Bundled bytes that do not parse give an image whose program() fails with the reason.
  ProgramImage(std::vector<uint8_t> bytes);  // NOLINT(google-explicit-constructor)

  // Maps the file at `path` read-only. The errors of MmapDataLoader::open (AccessFailed naming
  // the path and the reason), and of BundledProgram::parse for a bundled program.
  static Result<ProgramImage> map(const std::string& path);
  // An image owning `bytes`; BundledProgram::parse's errors for a bundled program.
  static Result<ProgramImage> from_bytes(std::vector<uint8_t> bytes);

  // The test sets when the file is a bundled program, else nullptr.
  const BundledProgram* bundled() const { return bundle_.get(); }
  // The whole file: the bundle for a bundled program, else bytes().
  Span<const uint8_t> file_bytes() const { return file_bytes_; }

  Span<const uint8_t> bytes() const { return bytes_; }
  const uint8_t* data() const { return bytes_.data(); }
  size_t size() const { return bytes_.size(); }
  // A copy of the bytes, for the few callers that must change them.
  std::vector<uint8_t> to_vector() const;

  // The program parsed over these bytes (Program::load_in_place); it keeps them alive.
  Result<Program> program() const;

 private:
  // Reads the bundle in file_bytes_, when it is one: bytes_ become the program inside.
  Error open_bundle();

  std::shared_ptr<const void> owner_;  // the mapping or the owned vector
  Span<const uint8_t> file_bytes_;
  Span<const uint8_t> bytes_;
  std::shared_ptr<const BundledProgram> bundle_;
  Error bundle_error_;  // why the bundle given to the implicit constructor does not parse
};

// Loads the program in `path` from a memory-mapped file, read in place (no copy of the bytes). The
// errors of ProgramImage::map, then Program::load's.
Result<Program> load_program_file(const std::string& path);

}  // namespace devplan::harness
