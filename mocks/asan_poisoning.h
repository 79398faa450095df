// Manual AddressSanitizer poisoning, for blocks held in a quarantine: in an ASan build a host
// read of a poisoned block is reported ("use-after-poison"); in other builds these do nothing.
#pragma once

#include <cstddef>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DEVPLAN_MOCKS_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define DEVPLAN_MOCKS_ASAN 1
#endif
#if defined(DEVPLAN_MOCKS_ASAN)
#include <sanitizer/asan_interface.h>
#endif

namespace devplan {

inline void asan_poison(const void* ptr, size_t size) {
#if defined(DEVPLAN_MOCKS_ASAN)
  if (size > 0) __asan_poison_memory_region(ptr, size);
#else
  (void)ptr;
  (void)size;
#endif
}

inline void asan_unpoison(const void* ptr, size_t size) {
#if defined(DEVPLAN_MOCKS_ASAN)
  if (size > 0) __asan_unpoison_memory_region(ptr, size);
#else
  (void)ptr;
  (void)size;
#endif
}

}  // namespace devplan
