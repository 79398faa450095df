#include <runtime_ext/core/memory_allocator.h>

#include <string>

namespace devplan {

Result<void*> MemoryAllocator::allocate(size_t nbytes, size_t alignment) {
  if (!is_power_of_two(alignment)) {
    return Error(ErrorCode::InvalidArgument,
                 "alignment " + std::to_string(alignment) + " is not a power of two");
  }
  const uintptr_t base = reinterpret_cast<uintptr_t>(arena_.data());
  uint64_t start = 0;
  if (!align_up(base + used_, alignment, &start) || start - base > arena_.size() ||
      nbytes > arena_.size() - (start - base)) {
    return Error(ErrorCode::MemoryAllocationFailed,
                 "arena of " + std::to_string(arena_.size()) + " bytes has no room for " +
                     std::to_string(nbytes) + " more (" + std::to_string(used_) + " used)");
  }
  used_ = static_cast<size_t>(start - base) + nbytes;
  return reinterpret_cast<void*>(static_cast<uintptr_t>(start));
}

}  // namespace devplan
