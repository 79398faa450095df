#include <runtime_ext/planning/hood_solver.h>

#include <algorithm>

namespace devplan {

void HoodSolver::reset(PlacementEngine& engine, const std::vector<int32_t>& items) {
  m_ = std::min(items.size(), kMaxItems);
  sizes_.resize(m_);
  gaps_.resize(m_);
  overlap_.assign(m_, 0);
  for (size_t a = 0; a < m_; ++a) {
    const int32_t i = items[a];
    sizes_[a] = engine.size(i);
    for (size_t b = 0; b < m_; ++b) {
      const int32_t j = items[b];
      if (a != b && engine.first(i) <= engine.last(j) && engine.first(j) <= engine.last(i)) {
        overlap_[a] |= uint32_t{1} << b;
      }
    }
    // The free gaps among the fixed items that share a step with item a.
    fixed_.clear();
    engine.collect(engine.first(i), engine.last(i), &fixed_);
    occupied_.clear();
    for (int32_t j : fixed_)
      occupied_.emplace_back(engine.offset(j), engine.offset(j) + engine.size(j));
    std::sort(occupied_.begin(), occupied_.end());
    std::vector<std::pair<uint64_t, uint64_t>>& gaps = gaps_[a];
    gaps.clear();
    uint64_t cursor = 0;
    for (const auto& [begin, end] : occupied_) {
      if (begin > cursor) gaps.emplace_back(cursor, begin);
      cursor = std::max(cursor, end);
    }
    gaps.emplace_back(cursor, UINT64_MAX);
  }
}

bool HoodSolver::solve(uint64_t limit, int64_t budget, std::vector<uint64_t>* offsets) {
  best_ = limit;
  budget_ = budget;
  found_ = false;
  off_.assign(m_, 0);
  if (m_ == 0) return false;
  dfs(0, 0, 0);
  if (found_) *offsets = best_off_;
  return found_;
}

uint64_t HoodSolver::lowest(size_t a, uint64_t floor, uint32_t placed) const {
  const uint64_t s = sizes_[a];
  const std::vector<std::pair<uint64_t, uint64_t>>& gaps = gaps_[a];
  uint64_t x = floor;
  size_t g = 0;
  for (;;) {
    // The first fixed gap that holds [x, x + s) once x is moved to its start; the last gap is
    // unbounded, so this stops.
    while (gaps[g].second <= x || gaps[g].second - std::max(x, gaps[g].first) < s) ++g;
    x = std::max(x, gaps[g].first);
    bool bumped = false;
    for (uint32_t mask = placed & overlap_[a]; mask != 0; mask &= mask - 1) {
      const int b = __builtin_ctz(mask);
      if (off_[b] < x + s && off_[b] + sizes_[b] > x) {
        x = off_[b] + sizes_[b];
        bumped = true;
      }
    }
    if (!bumped) return x;
  }
}

void HoodSolver::dfs(uint32_t placed, uint64_t floor, uint64_t peak) {
  const uint32_t all = (uint32_t{1} << m_) - 1;
  if (placed == all) {
    if (peak < best_) {
      best_ = peak;
      best_off_ = off_;
      found_ = true;
    }
    return;
  }
  if (--budget_ < 0) return;
  // Children: the items whose lowest offset is at or above the floor (canonical order). Any
  // unplaced item ends at least at its lowest offset above the floor: prune when that is
  // already no better than the best.
  std::pair<uint64_t, size_t> kids[kMaxItems];
  size_t nk = 0;
  for (size_t a = 0; a < m_; ++a) {
    if (placed & (uint32_t{1} << a)) continue;
    const uint64_t at = lowest(a, 0, placed);
    const uint64_t above = at >= floor ? at : lowest(a, floor, placed);
    if (above + sizes_[a] >= best_) return;
    if (at >= floor) kids[nk++] = {at, a};
  }
  std::sort(kids, kids + nk, [&](const auto& x, const auto& y) {
    if (x.first != y.first) return x.first < y.first;
    if (sizes_[x.second] != sizes_[y.second]) return sizes_[x.second] > sizes_[y.second];
    return x.second < y.second;
  });
  for (size_t k = 0; k < nk && budget_ >= 0; ++k) {
    const auto [at, a] = kids[k];
    if (at + sizes_[a] >= best_) continue;
    off_[a] = at;
    dfs(placed | (uint32_t{1} << a), at, std::max(peak, at + sizes_[a]));
  }
}

}  // namespace devplan
