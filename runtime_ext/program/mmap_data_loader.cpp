#include <runtime_ext/program/mmap_data_loader.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include <runtime_ext/program/regular_file.h>

namespace devplan {

Result<MmapDataLoader> MmapDataLoader::open(const std::string& path) {
  DEVPLAN_ASSIGN_OR_RETURN(RegularFile file, open_regular_file(path));
  if (file.size == 0) {  // mmap refuses a length of 0
    ::close(file.fd);
    return MmapDataLoader(nullptr, 0, path);
  }
  void* mapped = ::mmap(nullptr, file.size, PROT_READ, MAP_PRIVATE, file.fd, 0);
  const int err = errno;
  ::close(file.fd);  // the mapping stays valid without the descriptor
  if (mapped == MAP_FAILED) {
    return Error(ErrorCode::AccessFailed, "cannot map '" + path + "': " + errno_text(err));
  }
  return MmapDataLoader(static_cast<const uint8_t*>(mapped), file.size, path);
}

MmapDataLoader::MmapDataLoader(MmapDataLoader&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      path_(std::move(other.path_)),
      open_(std::exchange(other.open_, false)) {}

MmapDataLoader& MmapDataLoader::operator=(MmapDataLoader&& other) noexcept {
  if (this != &other) {
    unmap();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    path_ = std::move(other.path_);
    open_ = std::exchange(other.open_, false);
  }
  return *this;
}

MmapDataLoader::~MmapDataLoader() { unmap(); }

void MmapDataLoader::unmap() {
  if (data_ != nullptr) ::munmap(const_cast<uint8_t*>(data_), size_);
  data_ = nullptr;
  size_ = 0;
  open_ = false;
}

Result<size_t> MmapDataLoader::size() const {
  if (!open_) return Error(ErrorCode::InvalidState, "mmap loader has no mapped file");
  return size_;
}

Error MmapDataLoader::load_into(size_t offset, size_t size, void* dst) {
  if (!open_) return Error(ErrorCode::InvalidState, "mmap loader has no mapped file");
  DEVPLAN_RETURN_IF_ERROR(check_load_range(offset, size, size_, "file"));
  if (size > 0) std::memcpy(dst, data_ + offset, size);
  return Error::success();
}

}  // namespace devplan
