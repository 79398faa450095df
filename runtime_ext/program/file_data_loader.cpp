#include <runtime_ext/program/file_data_loader.h>

#include <new>

#include <unistd.h>

#include <cerrno>

#include <runtime_ext/program/regular_file.h>

namespace devplan {

Result<FileDataLoader> FileDataLoader::open(const std::string& path) {
  DEVPLAN_ASSIGN_OR_RETURN(RegularFile file, open_regular_file(path));
  return FileDataLoader(file.fd, file.size, path);
}

FileDataLoader::FileDataLoader(FileDataLoader&& other) noexcept
    : fd_(other.fd_), size_(other.size_), path_(std::move(other.path_)) {
  other.fd_ = -1;
  other.size_ = 0;
}

FileDataLoader& FileDataLoader::operator=(FileDataLoader&& other) noexcept {
  if (this != &other) {
    close_fd();
    fd_ = other.fd_;
    size_ = other.size_;
    path_ = std::move(other.path_);
    other.fd_ = -1;
    other.size_ = 0;
  }
  return *this;
}

FileDataLoader::~FileDataLoader() { close_fd(); }

void FileDataLoader::close_fd() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Result<size_t> FileDataLoader::size() const {
  if (fd_ < 0) return Error(ErrorCode::InvalidState, "file loader has no open file");
  return size_;
}

Error FileDataLoader::load_into(size_t offset, size_t size, void* dst) {
  if (fd_ < 0) return Error(ErrorCode::InvalidState, "file loader has no open file");
  DEVPLAN_RETURN_IF_ERROR(check_load_range(offset, size, size_, "file"));
  uint8_t* out = static_cast<uint8_t*>(dst);
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pread(fd_, out + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error(ErrorCode::AccessFailed, "cannot read '" + path_ + "' at offset " +
                                                std::to_string(offset + done) + ": " +
                                                errno_text(errno));
    }
    if (n == 0) {
      return Error(ErrorCode::AccessFailed, "'" + path_ + "' ended at " +
                                                std::to_string(offset + done) + " bytes; it had " +
                                                std::to_string(size_) + " when opened");
    }
    done += static_cast<size_t>(n);
  }
  return Error::success();
}

Result<std::vector<uint8_t>> read_file(const std::string& path) {
  DEVPLAN_ASSIGN_OR_RETURN(FileDataLoader loader, FileDataLoader::open(path));
  DEVPLAN_ASSIGN_OR_RETURN(size_t size, loader.size());
  std::vector<uint8_t> bytes;
  try {
    bytes.resize(size);
  } catch (const std::bad_alloc&) {
    return Error(ErrorCode::MemoryAllocationFailed, "cannot read '" + path + "': out of memory");
  }
  if (size > 0) DEVPLAN_RETURN_IF_ERROR(loader.load_into(0, size, bytes.data()));
  return bytes;
}

}  // namespace devplan
