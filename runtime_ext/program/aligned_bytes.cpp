#include <runtime_ext/program/aligned_bytes.h>

#include <cstring>
#include <new>
#include <string>

namespace devplan {

Result<AlignedBytes> AlignedBytes::allocate(size_t size) {
  if (size == 0) return AlignedBytes();
  void* p = ::operator new(size, std::align_val_t(kAlignment), std::nothrow);
  if (p == nullptr) {
    return Error(ErrorCode::MemoryAllocationFailed,
                 "cannot allocate " + std::to_string(size) + " bytes for program data");
  }
  return AlignedBytes(static_cast<uint8_t*>(p), size);
}

Result<AlignedBytes> AlignedBytes::copy_of(Span<const uint8_t> bytes) {
  DEVPLAN_ASSIGN_OR_RETURN(AlignedBytes out, allocate(bytes.size()));
  if (bytes.size() != 0) std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

AlignedBytes::AlignedBytes(AlignedBytes&& other) noexcept : data_(other.data_), size_(other.size_) {
  other.data_ = nullptr;
  other.size_ = 0;
}

AlignedBytes& AlignedBytes::operator=(AlignedBytes&& other) noexcept {
  if (this != &other) {
    release();
    data_ = other.data_;
    size_ = other.size_;
    other.data_ = nullptr;
    other.size_ = 0;
  }
  return *this;
}

AlignedBytes::~AlignedBytes() { release(); }

void AlignedBytes::release() {
  if (data_ != nullptr) ::operator delete(data_, std::align_val_t(kAlignment));
  data_ = nullptr;
  size_ = 0;
}

}  // namespace devplan
