#include <runtime_ext/core/text_join.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>

namespace devplan {

std::string pointer_text(const void* ptr) {
  char text[2 + 2 * sizeof(uintptr_t) + 1];
  std::snprintf(text, sizeof(text), "0x%" PRIxPTR, reinterpret_cast<uintptr_t>(ptr));
  return text;
}

}  // namespace devplan
