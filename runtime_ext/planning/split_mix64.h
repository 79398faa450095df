// SplitMix64 (Steele, Lea, Flood 2014): the one small seeded pseudo-random generator of the
// project: the planners, the graph generator and the fuzz scenario generator use it. Its output
// depends only on the seed, on every platform, so plans and generated programs are
// reproducible.
//
//   SplitMix64 rng(seed);
//   uint64_t i = rng.below(n);   // in [0, n)
#pragma once

#include <cstdint>
#include <vector>

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

  // In [0, n) (modulo bias is irrelevant here); 0 for n == 0, without drawing.
  uint64_t below(uint64_t n) { return n == 0 ? 0 : next() % n; }

  // In [lo, hi], lo <= hi.
  int64_t range(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(below(static_cast<uint64_t>(hi - lo) + 1));
  }

  // In [lo, hi]; lo when hi < lo.
  uint64_t between(uint64_t lo, uint64_t hi) { return hi < lo ? lo : lo + below(hi - lo + 1); }

  // The high 32 bits of one draw.
  uint32_t choice() { return static_cast<uint32_t>(next() >> 32); }

  // An element of `v` (not empty).
  template <typename T>
  const T& pick(const std::vector<T>& v) {
    return v[below(v.size())];
  }

  // In [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }

  bool chance(double p) { return uniform() < p; }

 private:
  uint64_t state_;
};

}  // namespace devplan
