#include <runtime_ext/core/byte_count.h>

#include <cstdio>

namespace devplan {

std::string format_bytes(uint64_t bytes) {
  std::string text = std::to_string(bytes) + " B";
  if (bytes < 1024) return text;
  const char* names[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes) / 1024.0;
  size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < sizeof(names) / sizeof(names[0])) {
    value /= 1024.0;
    ++unit;
  }
  char shown[32];
  std::snprintf(shown, sizeof(shown), "%.1f", value);
  // 1023.96 KiB prints as "1024.0 KiB"; move up a unit rather than show that.
  if (std::string(shown) == "1024.0" && unit + 1 < sizeof(names) / sizeof(names[0])) {
    std::snprintf(shown, sizeof(shown), "%.1f", 1.0);
    ++unit;
  }
  return text + " (" + shown + " " + names[unit] + ")";
}

}  // namespace devplan
