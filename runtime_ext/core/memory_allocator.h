// MemoryAllocator: a bump allocator over a caller-owned host span, for a method's own
// metadata and for kernels' scratch space. Frees nothing individually; reset() frees all.
//
//   std::vector<uint8_t> arena(4096);
//   MemoryAllocator temp(Span<uint8_t>(arena));
//   Result<void*> p = temp.allocate(64, 16);
//
// Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>

#include <runtime_ext/core/alignment.h>
#include <runtime_ext/core/result.h>
#include <runtime_ext/core/span.h>

namespace devplan {

class MemoryAllocator {
 public:
  MemoryAllocator() = default;
  explicit MemoryAllocator(Span<uint8_t> arena) : arena_(arena) {}

  // MemoryAllocationFailed when the arena has no room; InvalidArgument for an alignment that
  // is not a power of two.
  Result<void*> allocate(size_t nbytes, size_t alignment = kDefaultAlignment);

  void reset() { used_ = 0; }
  size_t used() const { return used_; }
  size_t capacity() const { return arena_.size(); }

 private:
  Span<uint8_t> arena_;
  size_t used_ = 0;
};

}  // namespace devplan
