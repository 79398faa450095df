#include <harness/values/bound_ratio.h>

#include <cstdio>

namespace devplan::harness {

double size_over_lower_bound(uint64_t size, uint64_t lower_bound) {
  if (lower_bound == 0) return size == 0 ? 1.0 : 0.0;
  return static_cast<double>(size) / static_cast<double>(lower_bound);
}

std::string optimality_text(uint64_t size, uint64_t proven_bound) {
  if (size <= proven_bound) return "optimal";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.2f%% above the proven bound",
                100.0 * (size_over_lower_bound(size, proven_bound) - 1.0));
  return buf;
}

}  // namespace devplan::harness
