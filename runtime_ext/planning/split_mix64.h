// SplitMix64: the small seeded pseudo-random generator the planners and the graph generator
// use. Its output depends only on the seed, on every platform, so plans are reproducible.
//
//   SplitMix64 rng(seed);
//   uint64_t i = rng.below(n);   // in [0, n)
#pragma once

#include <cstdint>

namespace devplan {

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}

  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

  // In [0, n) for n > 0 (modulo bias is irrelevant here).
  uint64_t below(uint64_t n) { return next() % n; }

  // In [lo, hi], lo <= hi.
  int64_t range(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(below(static_cast<uint64_t>(hi - lo) + 1));
  }

  // In [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }

  bool chance(double p) { return uniform() < p; }

 private:
  uint64_t state_;
};

}  // namespace devplan
