// The pruning of ExactSearch (exact_search.h): the sections a placement can have changed, and
// whether each can still hold what remains there.
#include <runtime_ext/planning/exact_search.h>

#include <algorithm>
#include <climits>

namespace devplan::internal {

// The sections under the remaining items that overlap [a, b], and [a, b] itself.
std::pair<int32_t, int32_t> ExactSearch::affected(int32_t a, int32_t b) const {
  int32_t lo = a, hi = b;
  for (int32_t s = a; s <= b; ++s) {
    work_ += static_cast<int64_t>(covering_[s].size());
    for (int32_t i : covering_[s]) {
      lo = std::min(lo, start_[i]);
      hi = std::max(hi, end_[i]);
    }
  }
  return {lo, hi};
}

// Whether every section of [lo, hi] can still hold what remains there between the lowest
// offset any of its remaining items can take (the highest floor under the item, aligned) and
// the highest end any can reach (the lowest ceiling over it): a section whose floor is lower
// than all of its items, or whose ceiling is higher, wastes the space in between.
bool ExactSearch::sections_can_hold(int32_t lo, int32_t hi) {
  ++visit_;
  for (int32_t s = lo; s <= hi; ++s) {
    lowest_[s] = UINT64_MAX;
    highest_[s] = 0;
  }
  for (int32_t s = lo; s <= hi; ++s) {
    work_ += static_cast<int64_t>(covering_[s].size());
    for (int32_t i : covering_[s]) {
      if (visited_[i] == visit_) continue;
      visited_[i] = visit_;
      work_ += 2 * (end_[i] - start_[i] + 1);
      uint64_t high_floor = 0, low_ceiling = UINT64_MAX;
      for (int32_t t = start_[i]; t <= end_[i]; ++t) {
        high_floor = std::max(high_floor, floor_[t]);
        low_ceiling = std::min(low_ceiling, ceiling_[t]);
      }
      const uint64_t alignment = items_[i].alignment, size = items_[i].size;
      const uint64_t at = round_up(high_floor, alignment);
      const uint64_t top =
          low_ceiling < size ? 0 : (low_ceiling - size) / alignment * alignment + size;
      for (int32_t t = std::max(lo, start_[i]); t <= std::min(hi, end_[i]); ++t) {
        lowest_[t] = std::min(lowest_[t], at);
        highest_[t] = std::max(highest_[t], top);
      }
    }
  }
  for (int32_t s = lo; s <= hi; ++s) {
    if (remaining_bytes_[s] == 0) continue;
    if (lowest_[s] > highest_[s] || highest_[s] - lowest_[s] < remaining_bytes_[s]) return false;
  }
  return true;
}

}  // namespace devplan::internal
