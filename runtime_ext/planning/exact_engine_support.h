// Internal to runtime_ext/planning: the small steps both engines of the exact search
// (ExactSearch, exact_search.h; CanonicalSearch, exact_canonical_search.h) take. Include it
// nowhere else.
#pragma once

#include <chrono>
#include <cstdint>

#include <runtime_ext/planning/exact_planner.h>

namespace devplan::internal {

inline uint64_t round_up(uint64_t value, uint64_t alignment) {
  const uint64_t rest = value % alignment;
  return rest == 0 ? value : value + (alignment - rest);
}

// Whether `deadline` is set and has passed.
inline bool deadline_passed(const ExactDeadline& deadline) {
  return deadline && std::chrono::steady_clock::now() >= *deadline;
}

}  // namespace devplan::internal
