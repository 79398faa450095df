// DataLoader: where a program's bytes come from (a file, a byte buffer, ...).
//
// Program::load reads the whole file through this interface into memory it owns, so a loader
// need not outlive the Program it produced.
//
//   Result<FileDataLoader> loader = FileDataLoader::open("model.pte");
//   if (!loader.ok()) return loader.error();
//   Result<Program> program = Program::load(*loader);
//
// Implementations report every failure as an Error and never throw or abort. A loader is used
// by one thread at a time.
#pragma once

#include <runtime_ext/core/error.h>
#include <runtime_ext/core/result.h>
#include <runtime_ext/program/aligned_bytes.h>

#include <cstddef>

namespace devplan {

class DataLoader {
 public:
  virtual ~DataLoader() = default;

  // The number of bytes the loader holds.
  virtual Result<size_t> size() const = 0;

  // Copies bytes [offset, offset + size) into `dst` (which has room for `size` bytes).
  // InvalidArgument when the range does not lie within [0, size()) (overflow-checked);
  // AccessFailed when the underlying storage cannot be read.
  virtual Error load_into(size_t offset, size_t size, void* dst) = 0;

  // Bytes [offset, offset + size) in a new buffer aligned to AlignedBytes::kAlignment; the
  // errors of load_into, or MemoryAllocationFailed.
  Result<AlignedBytes> load(size_t offset, size_t size);
};

// Checks that [offset, offset + size) lies within [0, total) without overflowing; the Error is
// InvalidArgument naming the range and `what` ("buffer of 16 bytes").
Error check_load_range(size_t offset, size_t size, size_t total, const char* what);

}  // namespace devplan
