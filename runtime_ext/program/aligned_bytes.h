// AlignedBytes: an owned, heap-allocated byte buffer whose start is aligned to kAlignment.
//
// Program keeps the file's bytes in one of these, so flatbuffer tables, force-aligned vectors
// and tensor data inside it are aligned as the reader requires, and pointers into it stay
// valid when the owner is moved.
//
//   Result<AlignedBytes> bytes = AlignedBytes::allocate(n);
//   if (!bytes.ok()) return bytes.error();
//   std::memcpy(bytes->data(), src, n);
#pragma once

#include <runtime_ext/core/result.h>
#include <runtime_ext/core/span.h>

#include <cstddef>
#include <cstdint>

namespace devplan {

class AlignedBytes {
 public:
  // The alignment of data(): enough for every flatbuffer scalar and force_align(16) vector.
  static constexpr size_t kAlignment = 16;

  // An empty buffer (data() == nullptr, size() == 0).
  AlignedBytes() = default;

  // A buffer of `size` uninitialized bytes aligned to kAlignment. MemoryAllocationFailed when
  // the allocation fails. size 0 gives an empty buffer.
  static Result<AlignedBytes> allocate(size_t size);

  // A copy of `bytes` in a new aligned buffer.
  static Result<AlignedBytes> copy_of(Span<const uint8_t> bytes);

  AlignedBytes(AlignedBytes&& other) noexcept;
  AlignedBytes& operator=(AlignedBytes&& other) noexcept;
  AlignedBytes(const AlignedBytes&) = delete;
  AlignedBytes& operator=(const AlignedBytes&) = delete;
  ~AlignedBytes();

  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  Span<const uint8_t> span() const { return Span<const uint8_t>(data_, size_); }

 private:
  AlignedBytes(uint8_t* data, size_t size) : data_(data), size_(size) {}
  void release();

  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace devplan
