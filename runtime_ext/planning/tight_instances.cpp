#include <runtime_ext/planning/tight_instances.h>

#include <utility>

#include <runtime_ext/planning/split_mix64.h>

namespace devplan {

namespace {

struct Piece {
  int64_t t0, t1;   // time [t0, t1)
  uint64_t y0, y1;  // space [y0, y1)
  int64_t width() const { return t1 - t0; }
  uint64_t height() const { return y1 - y0; }
  double area() const { return static_cast<double>(width()) * static_cast<double>(height()); }
};

// A point strictly inside (lo, hi); hi - lo >= 2.
template <typename T>
T inside(SplitMix64& rng, T lo, T hi) {
  return lo + 1 + static_cast<T>(rng.below(static_cast<uint64_t>(hi - lo - 1)));
}

// Cuts `p` into pieces appended to `out`; false when it is too small to cut.
bool cut(const Piece& p, bool pinwheel, SplitMix64& rng, std::vector<Piece>* out) {
  const bool can_time = p.width() >= 2, can_space = p.height() >= 2;
  if (pinwheel && p.width() >= 3 && p.height() >= 3) {
    // t0 < ta < tb < t1 and y0 < ya < yb < y1: four pieces turn around the centre one.
    int64_t ta = inside(rng, p.t0, p.t1), tb = inside(rng, p.t0, p.t1);
    uint64_t ya = inside(rng, p.y0, p.y1), yb = inside(rng, p.y0, p.y1);
    if (ta != tb && ya != yb) {
      if (ta > tb) std::swap(ta, tb);
      if (ya > yb) std::swap(ya, yb);
      out->push_back({p.t0, tb, p.y0, ya});
      out->push_back({tb, p.t1, p.y0, yb});
      out->push_back({ta, p.t1, yb, p.y1});
      out->push_back({p.t0, ta, ya, p.y1});
      out->push_back({ta, tb, ya, yb});
      return true;
    }
  }
  if (!can_time && !can_space) return false;
  const bool in_time = can_time && (!can_space || rng.chance(0.5));
  if (in_time) {
    const int64_t t = inside(rng, p.t0, p.t1);
    out->push_back({p.t0, t, p.y0, p.y1});
    out->push_back({t, p.t1, p.y0, p.y1});
  } else {
    const uint64_t y = inside(rng, p.y0, p.y1);
    out->push_back({p.t0, p.t1, p.y0, y});
    out->push_back({p.t0, p.t1, y, p.y1});
  }
  return true;
}

}  // namespace

std::vector<ExactItem> generate_tight_instance(const TightInstanceOptions& options) {
  SplitMix64 rng(options.seed);
  std::vector<Piece> pieces;
  if (options.capacity > 0 && options.duration > 0 && options.buffers > 0) {
    pieces.push_back({0, options.duration, 0, options.capacity});
  }
  // A few failed draws in a row mean the pieces left are (nearly) all unit-sized.
  for (int failures = 0; pieces.size() < options.buffers && failures < 64;) {
    size_t at = rng.below(pieces.size());
    const size_t other = rng.below(pieces.size());
    if (pieces[other].area() > pieces[at].area()) at = other;
    const bool pinwheel =
        pieces.size() + 4 <= options.buffers && rng.chance(options.pinwheel_chance);
    std::vector<Piece> parts;
    if (!cut(pieces[at], pinwheel, rng, &parts)) {
      ++failures;
      continue;
    }
    failures = 0;
    pieces[at] = parts[0];
    pieces.insert(pieces.end(), parts.begin() + 1, parts.end());
  }
  // Fisher-Yates: ids say nothing about where a piece lies.
  for (size_t i = pieces.size(); i > 1; --i) std::swap(pieces[i - 1], pieces[rng.below(i)]);
  std::vector<ExactItem> items;
  items.reserve(pieces.size());
  for (const Piece& p : pieces) items.push_back(ExactItem{p.height(), p.t0, p.t1, 1});
  return items;
}

}  // namespace devplan
