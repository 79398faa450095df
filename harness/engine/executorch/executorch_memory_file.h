// An anonymous in-memory file holding a program's bytes, for ExecuTorch APIs that take a path
// (its Module merges several data files only when it opens the program from a path).
#pragma once

#include <cstdint>
#include <string>

#include <runtime_ext/core/result.h>
#include <runtime_ext/core/span.h>

namespace devplan::harness::executorch_engine {

// `bytes` in a memfd, open read-only through /proc/self/fd/N; the descriptor closes with the
// object.
class MemoryFile {
 public:
  static Result<MemoryFile> create(Span<const uint8_t> bytes);
  MemoryFile(MemoryFile&& other) noexcept;
  MemoryFile& operator=(MemoryFile&& other) noexcept;
  ~MemoryFile();
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

 private:
  MemoryFile() = default;
  int fd_ = -1;
};

}  // namespace devplan::harness::executorch_engine
