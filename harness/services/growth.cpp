#include <harness/services/growth.h>

#include <runtime_ext/core/byte_count.h>

#include <cstdio>

namespace devplan::harness {
namespace {

// "+16", "-16", "+0": the signed difference, in the units the caller appends.
std::string signed_difference(uint64_t before, uint64_t now) {
  return now >= before ? "+" + std::to_string(now - before) : "-" + std::to_string(before - now);
}

}  // namespace

bool grows_beyond(uint64_t before, uint64_t now, double tolerance_pct) {
  if (now <= before) return false;
  // long double holds every uint64 exactly, so 0% tolerance is exact.
  const long double allowed =
      static_cast<long double>(before) * (1.0L + static_cast<long double>(tolerance_pct) / 100.0L);
  return static_cast<long double>(now) > allowed;
}

std::optional<double> growth_percent(uint64_t before, uint64_t now) {
  if (before == 0) return now == 0 ? std::optional<double>(0.0) : std::nullopt;
  return 100.0 * (static_cast<double>(now) - static_cast<double>(before)) /
         static_cast<double>(before);
}

std::string percent_change_text(uint64_t before, uint64_t now) {
  const std::optional<double> pct = growth_percent(before, now);
  if (!pct) return "new";
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%+.2f%%", *pct);
  return buf;
}

std::string byte_change_text(uint64_t before, uint64_t now) {
  return format_bytes(before) + " -> " + format_bytes(now) + " (" + signed_difference(before, now) +
         " B, " + percent_change_text(before, now) + ")";
}

std::string count_change_text(uint64_t before, uint64_t now) {
  return std::to_string(before) + " -> " + std::to_string(now) + " (" +
         signed_difference(before, now) + ", " + percent_change_text(before, now) + ")";
}

std::string tolerance_text(double pct) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%g%%", pct);
  return buf;
}

}  // namespace devplan::harness
