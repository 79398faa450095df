// Alignment helpers shared by allocators and planners.
#pragma once

#include <cstddef>
#include <cstdint>

namespace devplan {

// The memory planner's default alignment, and the alignment every planned buffer is allocated
// with. ExecuTorch allocates at 8 and plans at 16; we keep the two equal.
constexpr size_t kDefaultAlignment = 16;

constexpr bool is_power_of_two(size_t n) { return n != 0 && (n & (n - 1)) == 0; }

// Rounds `n` up to a multiple of `alignment` (a power of two). Returns false on overflow.
inline bool align_up(uint64_t n, uint64_t alignment, uint64_t* out) {
  const uint64_t mask = alignment - 1;
  if (n > UINT64_MAX - mask) return false;
  *out = (n + mask) & ~mask;
  return true;
}

inline bool is_aligned(const void* ptr, size_t alignment) {
  return (reinterpret_cast<uintptr_t>(ptr) & (alignment - 1)) == 0;
}

}  // namespace devplan
