#include <harness/engine/executorch/executorch_memory_file.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace devplan::harness::executorch_engine {

Result<MemoryFile> MemoryFile::create(Span<const uint8_t> bytes) {
  MemoryFile f;
  f.fd_ = ::memfd_create("devplan-program", MFD_CLOEXEC);
  if (f.fd_ < 0) {
    return Error(ErrorCode::AccessFailed,
                 std::string("cannot create an in-memory file: ") + std::strerror(errno));
  }
  for (size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(f.fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return Error(ErrorCode::AccessFailed,
                   std::string("cannot write an in-memory file: ") + std::strerror(errno));
    }
    done += static_cast<size_t>(n);
  }
  return f;
}

MemoryFile::MemoryFile(MemoryFile&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

MemoryFile& MemoryFile::operator=(MemoryFile&& other) noexcept {
  std::swap(fd_, other.fd_);
  return *this;
}

MemoryFile::~MemoryFile() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace devplan::harness::executorch_engine
