#include <runtime_ext/planning/offset_planner.h>

#include <algorithm>
#include <cstdlib>
#include <cstdio>
#include <cmath>
#include <numeric>
#include <set>

#include <runtime_ext/planning/placement_engine.h>

namespace devplan {

const char* planner_algorithm_name(PlannerAlgorithm algorithm) {
  switch (algorithm) {
    case PlannerAlgorithm::Naive:
      return "naive";
    case PlannerAlgorithm::Greedy:
      return "greedy";
    case PlannerAlgorithm::GreedyBreadth:
      return "greedy_breadth";
    case PlannerAlgorithm::Search:
      return "search";
    case PlannerAlgorithm::Best:
      return "best";
  }
  return "unknown";
}

std::vector<PlannerAlgorithm> all_planner_algorithms() {
  return {PlannerAlgorithm::Naive, PlannerAlgorithm::Greedy, PlannerAlgorithm::GreedyBreadth,
          PlannerAlgorithm::Search, PlannerAlgorithm::Best};
}

Result<PlannerAlgorithm> parse_planner_algorithm(const std::string& name) {
  for (PlannerAlgorithm a : all_planner_algorithms()) {
    if (name == planner_algorithm_name(a)) return a;
  }
  return Error(ErrorCode::InvalidArgument,
               "unknown planner algorithm '" + name +
                   "' (expected naive, greedy, greedy_breadth, search or best)");
}

int64_t default_search_iterations(size_t num_items) {
  if (num_items <= 1) return 0;
  static const int64_t lo = getenv("DP_LO") ? atoll(getenv("DP_LO")) : 20000;
  static const int64_t hi = getenv("DP_HI") ? atoll(getenv("DP_HI")) : 100000;
  static const int64_t per = getenv("DP_PER") ? atoll(getenv("DP_PER")) : 20;
  return std::clamp<int64_t>(static_cast<int64_t>(num_items) * per, lo, hi);
}

uint64_t live_bytes_lower_bound(const std::vector<PlanItem>& items, uint64_t alignment) {
  int32_t steps = 0;
  for (const PlanItem& it : items) {
    if (it.first >= 0 && it.last >= it.first) steps = std::max(steps, it.last + 1);
  }
  // Saturating difference array over steps.
  std::vector<uint64_t> add(static_cast<size_t>(steps) + 1, 0), sub(static_cast<size_t>(steps) + 1, 0);
  auto sat_add = [](uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; };
  for (const PlanItem& it : items) {
    if (it.first < 0 || it.last < it.first) continue;
    uint64_t size = UINT64_MAX;
    if (!align_up(it.size, alignment, &size)) size = UINT64_MAX;
    add[it.first] = sat_add(add[it.first], size);
    sub[it.last + 1] = sat_add(sub[it.last + 1], size);
  }
  // live = sum(add[0..s]) - sum(sub[0..s]); computed with wide arithmetic to survive saturation.
  unsigned __int128 plus = 0, minus = 0, best = 0;
  for (int32_t s = 0; s < steps; ++s) {
    plus += add[s];
    minus += sub[s];
    best = std::max(best, plus - minus);
  }
  return best > UINT64_MAX ? UINT64_MAX : static_cast<uint64_t>(best);
}

namespace {

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform enough in [0, n); n > 0.
  uint64_t below(uint64_t n) { return next() % n; }

 private:
  uint64_t state_;
};

struct Candidate {
  std::vector<int32_t> order;
  PlacementEngine::Fit fit = PlacementEngine::Fit::kLowest;
  uint64_t total = UINT64_MAX;
  std::vector<uint64_t> offsets;
};

// The planned items with room to take, in compact form, plus the engine over them.
class Problem {
 public:
  Problem(std::vector<uint64_t> sizes, std::vector<int32_t> firsts, std::vector<int32_t> lasts)
      : engine_(std::move(sizes), std::move(firsts), std::move(lasts)) {}

  PlacementEngine& engine() { return engine_; }
  size_t size() const { return engine_.num_items(); }

  std::vector<int32_t> identity() const {
    std::vector<int32_t> order(size());
    std::iota(order.begin(), order.end(), 0);
    return order;
  }

  // Sorts items by `less`, ties by index: a deterministic order.
  template <typename Less>
  std::vector<int32_t> sorted(Less less) const {
    std::vector<int32_t> order = identity();
    std::stable_sort(order.begin(), order.end(), less);
    return order;
  }

  std::vector<int32_t> by_size() const {
    const PlacementEngine& e = engine_;
    return sorted([&](int32_t a, int32_t b) { return e.size(a) > e.size(b); });
  }

  // Greedy by breadth: items keyed by the widest step of their lifetime (steps ordered by live
  // bytes descending, then step), then by size descending.
  std::vector<int32_t> by_breadth() const {
    const PlacementEngine& e = engine_;
    const int32_t steps = e.num_steps();
    std::vector<unsigned __int128> live(static_cast<size_t>(steps) + 1, 0);
    std::vector<unsigned __int128> delta_minus(static_cast<size_t>(steps) + 1, 0);
    for (size_t i = 0; i < size(); ++i) {
      live[e.first(i)] += e.size(i);
      delta_minus[e.last(i) + 1] += e.size(i);
    }
    unsigned __int128 running = 0;
    for (int32_t s = 0; s < steps; ++s) {
      running += live[s];
      running -= delta_minus[s];
      live[s] = running;
    }
    // Rank of each step: 0 for the widest.
    std::vector<int32_t> steps_by_width(steps);
    std::iota(steps_by_width.begin(), steps_by_width.end(), 0);
    std::stable_sort(steps_by_width.begin(), steps_by_width.end(),
                     [&](int32_t a, int32_t b) { return live[a] > live[b]; });
    std::vector<int32_t> rank(steps);
    for (int32_t r = 0; r < steps; ++r) rank[steps_by_width[r]] = r;
    // Range minimum of rank over each lifetime, with a sparse table.
    std::vector<std::vector<int32_t>> table{rank};
    for (int32_t w = 1; (1 << w) <= steps; ++w) {
      const std::vector<int32_t>& prev = table.back();
      std::vector<int32_t> next(steps - (1 << w) + 1);
      for (size_t s = 0; s < next.size(); ++s) {
        next[s] = std::min(prev[s], prev[s + (1 << (w - 1))]);
      }
      table.push_back(std::move(next));
    }
    std::vector<int32_t> key(size());
    for (size_t i = 0; i < size(); ++i) {
      const int32_t a = e.first(i);
      const int32_t b = e.last(i);
      int32_t w = 0;
      while ((2 << w) <= b - a + 1) ++w;
      key[i] = std::min(table[w][a], table[w][b - (1 << w) + 1]);
    }
    return sorted([&](int32_t a, int32_t b) {
      if (key[a] != key[b]) return key[a] < key[b];
      return e.size(a) > e.size(b);
    });
  }

  // Items with the most overlapping bytes first (conflict weight), then by size.
  std::vector<int32_t> by_conflicts() const {
    const PlacementEngine& e = engine_;
    const int32_t steps = e.num_steps();
    // Overlap bytes of item i = sum of sizes of items j with first_j <= last_i and
    // last_j >= first_i = total - bytes(last_j < first_i) - bytes(first_j > last_i).
    std::vector<unsigned __int128> ends_before(static_cast<size_t>(steps) + 1, 0);
    std::vector<unsigned __int128> starts_after(static_cast<size_t>(steps) + 2, 0);
    unsigned __int128 total = 0;
    for (size_t i = 0; i < size(); ++i) {
      total += e.size(i);
      ends_before[e.last(i) + 1] += e.size(i);  // prefix: bytes with last < s
      starts_after[e.first(i)] += e.size(i);
    }
    for (int32_t s = 1; s <= steps; ++s) ends_before[s] += ends_before[s - 1];
    for (int32_t s = steps - 1; s >= 0; --s) starts_after[s] += starts_after[s + 1];
    std::vector<unsigned __int128> weight(size());
    for (size_t i = 0; i < size(); ++i) {
      weight[i] = total - ends_before[e.first(i)] - starts_after[e.last(i) + 1];
    }
    return sorted([&](int32_t a, int32_t b) {
      if (weight[a] != weight[b]) return weight[a] > weight[b];
      return e.size(a) > e.size(b);
    });
  }

  std::vector<int32_t> by_length() const {
    const PlacementEngine& e = engine_;
    return sorted([&](int32_t a, int32_t b) {
      const int32_t la = e.last(a) - e.first(a), lb = e.last(b) - e.first(b);
      if (la != lb) return la > lb;
      return e.size(a) > e.size(b);
    });
  }

  // Long-lived items (lifetime above four times the mean) first, longest first; then the rest
  // with `rest` (an order over all items, whose relative order is kept).
  std::vector<int32_t> long_first(const std::vector<int32_t>& rest) const {
    const PlacementEngine& e = engine_;
    double mean = 0;
    for (size_t i = 0; i < size(); ++i) mean += e.last(i) - e.first(i) + 1;
    mean /= static_cast<double>(std::max<size_t>(size(), 1));
    std::vector<int32_t> order;
    for (int32_t i : by_length()) {
      if (e.last(i) - e.first(i) + 1 > 4 * mean) order.push_back(i);
    }
    const size_t n_long = order.size();
    for (int32_t i : rest) {
      if (!(e.last(i) - e.first(i) + 1 > 4 * mean)) order.push_back(i);
    }
    (void)n_long;
    return order;
  }

  std::vector<int32_t> by_area() const {
    const PlacementEngine& e = engine_;
    return sorted([&](int32_t a, int32_t b) {
      const unsigned __int128 xa = static_cast<unsigned __int128>(e.size(a)) * (e.last(a) - e.first(a) + 1);
      const unsigned __int128 xb = static_cast<unsigned __int128>(e.size(b)) * (e.last(b) - e.first(b) + 1);
      if (xa != xb) return xa > xb;
      return e.size(a) > e.size(b);
    });
  }

  Candidate evaluate(std::vector<int32_t> order, PlacementEngine::Fit fit) {
    Candidate c;
    c.fit = fit;
    c.total = engine_.place(order, fit, UINT64_MAX, &c.offsets);
    c.order = std::move(order);
    return c;
  }

 private:
  PlacementEngine engine_;
};

// The most items one local-search step re-places.
constexpr size_t kMaxNeighbourhood = 96;
// Lifetimes longer than this many steps count as long for neighbourhood windows.
constexpr int32_t kLongLifetime = 64;

// Exact-within-budget re-placement of a small neighbourhood around fixed items: a depth-first
// search over canonical placements (items in non-decreasing offset order, each at the lowest
// offset that fits), which contain an optimal placement, looking for a lower top than `limit`.
class HoodSolver {
 public:
  static constexpr size_t kMaxItems = 24;

  // items: the neighbourhood; engine holds the fixed items (not the neighbourhood).
  void reset(PlacementEngine& engine, const std::vector<int32_t>& items) {
    m_ = items.size();
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
      fixed_.clear();
      engine.collect(engine.first(i), engine.last(i), &fixed_);
      occupied_.clear();
      for (int32_t j : fixed_) occupied_.emplace_back(engine.offset(j), engine.offset(j) + engine.size(j));
      std::sort(occupied_.begin(), occupied_.end());
      std::vector<std::pair<uint64_t, uint64_t>>& g = gaps_[a];
      g.clear();
      uint64_t cursor = 0;
      for (const auto& [b, e] : occupied_) {
        if (b > cursor) g.emplace_back(cursor, b);
        cursor = std::max(cursor, e);
      }
      g.emplace_back(cursor, UINT64_MAX);
    }
  }

  // Searches at most `budget` nodes for a placement whose top is below `limit`; true and the
  // offsets (parallel to the items) when found.
  bool solve(uint64_t limit, int64_t budget, std::vector<uint64_t>* offsets) {
    best_ = limit;
    budget_ = budget;
    found_ = false;
    off_.assign(m_, 0);
    dfs(0, 0, 0);
    if (found_) *offsets = best_off_;
    return found_;
  }

 private:
  // Lowest offset >= lo where item a fits among fixed items and placed neighbours.
  uint64_t lowest(size_t a, uint64_t lo, uint32_t placed) const {
    const uint64_t s = sizes_[a];
    uint64_t x = lo;
    size_t g = 0;
    const std::vector<std::pair<uint64_t, uint64_t>>& gaps = gaps_[a];
    for (;;) {
      while (gaps[g].second <= x || gaps[g].second - std::max(x, gaps[g].first) < s) ++g;
      x = std::max(x, gaps[g].first);
      bool bumped = false;
      uint32_t mask = placed & overlap_[a];
      while (mask != 0) {
        const int b = __builtin_ctz(mask);
        mask &= mask - 1;
        if (off_[b] < x + s && off_[b] + sizes_[b] > x) {
          x = off_[b] + sizes_[b];
          bumped = true;
        }
      }
      if (!bumped) return x;
    }
  }

  void dfs(uint32_t placed, uint64_t floor, uint64_t peak) {
    if (placed == (m_ == 32 ? ~uint32_t{0} : (uint32_t{1} << m_) - 1)) {
      if (peak < best_) {
        best_ = peak;
        best_off_ = off_;
        found_ = true;
      }
      return;
    }
    if (--budget_ < 0) return;
    // Children: items whose lowest offset is at or above the floor (canonical order).
    std::pair<uint64_t, size_t> kids[kMaxItems];
    size_t nk = 0;
    for (size_t a = 0; a < m_; ++a) {
      if (placed & (uint32_t{1} << a)) continue;
      const uint64_t l0 = lowest(a, 0, placed);
      const uint64_t lf = l0 >= floor ? l0 : lowest(a, floor, placed);
      if (lf + sizes_[a] >= best_) return;  // it can only end higher
      if (l0 >= floor) kids[nk++] = {l0, a};
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

  size_t m_ = 0;
  std::vector<uint64_t> sizes_;
  std::vector<uint32_t> overlap_;
  std::vector<std::vector<std::pair<uint64_t, uint64_t>>> gaps_;
  std::vector<int32_t> fixed_;
  std::vector<std::pair<uint64_t, uint64_t>> occupied_;
  std::vector<uint64_t> off_;
  std::vector<uint64_t> best_off_;
  uint64_t best_ = 0;
  int64_t budget_ = 0;
  bool found_ = false;
};

// Local search by neighbourhoods (a large-neighbourhood search over placement orders). Each
// iteration picks an item that ends above the lower bound, frees the items whose lifetimes
// overlap a random time window around it, and re-places them lowest-fit around the items that
// stay, in the order of their current offsets with one perturbation (an item moved earlier, or
// two swapped, or a fresh order). Placing in the order of current offsets never raises an
// item, so the perturbation is what explores. The step is kept when the plan does not grow and
// the neighbourhood's own top does not rise; otherwise the old offsets come back.
Candidate improve(Problem& problem, Candidate cur, int64_t iterations, uint64_t seed,
                  uint64_t lower_bound) {
  PlacementEngine& engine = problem.engine();
  const int32_t n = static_cast<int32_t>(problem.size());
  if (n < 2 || iterations <= 0 || cur.total <= lower_bound) return cur;
  SplitMix64 rng(seed);
  engine.clear();
  std::set<std::pair<uint64_t, int32_t>> ends;  // (end, item)
  // Items ending above the lower bound, with their index in `over` (or -1).
  std::vector<int32_t> over;
  std::vector<int32_t> over_at(n, -1);
  auto end_of = [&](int32_t i) { return cur.offsets[i] + engine.size(i); };
  auto set_over = [&](int32_t i, bool is_over) {
    if (is_over && over_at[i] < 0) {
      over_at[i] = static_cast<int32_t>(over.size());
      over.push_back(i);
    } else if (!is_over && over_at[i] >= 0) {
      const int32_t moved = over.back();
      over[over_at[i]] = moved;
      over_at[moved] = over_at[i];
      over.pop_back();
      over_at[i] = -1;
    }
  };
  for (int32_t i = 0; i < n; ++i) {
    engine.add(i, cur.offsets[i]);
    ends.emplace(end_of(i), i);
    set_over(i, end_of(i) > lower_bound);
  }
  // Annealing: a step may raise its neighbourhood's top by a random threshold whose scale
  // starts at half the median item size and falls linearly to 0; the best plan seen is kept.
  std::vector<uint64_t> sorted_sizes;
  for (int32_t i = 0; i < n; ++i) sorted_sizes.push_back(engine.size(i));
  std::nth_element(sorted_sizes.begin(), sorted_sizes.begin() + n / 2, sorted_sizes.end());
  const double temp0 = (getenv("DP_T") ? atof(getenv("DP_T")) : 0.5) * static_cast<double>(sorted_sizes[n / 2]);
  Candidate best = cur;
  size_t dbg_hood = 0, dbg_iters = 0, dbg_acc = 0, dbg_better = 0, dbg_bb = 0, dbg_bbok = 0;
  HoodSolver solver;
  std::vector<int32_t> hood;
  std::vector<uint64_t> skyline_old, skyline_new;
  std::vector<uint64_t> old_offsets;
  std::vector<uint64_t> new_offsets;
  for (int64_t it = 0; it < iterations && best.total > lower_bound && !over.empty(); ++it) {
    static const int kCrit = getenv("DP_CRIT") ? atoi(getenv("DP_CRIT")) : 0;
    int32_t target = over[rng.below(over.size())];
    if (static_cast<int>(rng.below(100)) < kCrit) {
      // an item at the top
      size_t count = 0;
      for (auto it = ends.rbegin(); it != ends.rend() && it->first == cur.total && count < 64; ++it) ++count;
      auto it = ends.rbegin();
      std::advance(it, rng.below(count));
      target = it->second;
    }
    // A window of steps around the target: its whole lifetime widened at random, or, when that
    // holds more than `cap` items, shrinking windows around one of its steps.
    const size_t cap = 16 + rng.below(kMaxNeighbourhood - 15);
    const int32_t len = engine.last(target) - engine.first(target) + 1;
    hood.clear();
    int32_t lo = 0, hi = -1;
    if (len <= kLongLifetime && rng.below(2) == 0) {
      lo = engine.first(target) - static_cast<int32_t>(rng.below(2 * len + 4));
      hi = engine.last(target) + static_cast<int32_t>(rng.below(2 * len + 4));
      engine.collect(lo, hi, &hood);
    }
    if (hood.empty() || hood.size() > cap) {
      const int32_t step = engine.first(target) + static_cast<int32_t>(rng.below(len));
      for (int32_t w = static_cast<int32_t>(rng.below(16)); ; w /= 2) {
        hood.clear();
        lo = step - w;
        hi = step + w;
        engine.collect(lo, hi, &hood);
        if (hood.size() <= cap || w == 0) break;
      }
    }
    // Items living far longer than the window stay put, the target too: they rarely can move,
    // and placing one costs in proportion to its lifetime. The seeds place them.
    const int32_t too_long = std::max(kLongLifetime, 4 * (hi - lo + 1));
    hood.erase(std::remove_if(hood.begin(), hood.end(), [&](int32_t i) {
                 return engine.last(i) - engine.first(i) + 1 > too_long;
               }),
               hood.end());
    if (hood.size() > cap) {
      // Keep the target and the items nearest the top.
      std::stable_sort(hood.begin(), hood.end(), [&](int32_t a, int32_t b) {
        if ((a == target) != (b == target)) return a == target;
        return end_of(a) > end_of(b);
      });
      hood.resize(cap);
    }
    if (hood.size() < 2) continue;
    dbg_hood += hood.size(); ++dbg_iters;
    static const int kBB = getenv("DP_BB") ? atoi(getenv("DP_BB")) : 0;
    static const int kBBNodes = getenv("DP_BBN") ? atoi(getenv("DP_BBN")) : 3000;
    if (static_cast<int>(rng.below(100)) < kBB) {
      std::vector<int32_t> sub = hood;
      std::stable_sort(sub.begin(), sub.end(), [&](int32_t a, int32_t b) { return end_of(a) > end_of(b); });
      if (sub.size() > HoodSolver::kMaxItems) sub.resize(HoodSolver::kMaxItems);
      uint64_t old_peak = 0;
      for (int32_t i : sub) {
        old_peak = std::max(old_peak, end_of(i));
        engine.remove(i);
        ends.erase({end_of(i), i});
      }
      solver.reset(engine, sub);
      std::vector<uint64_t> offs;
      const bool found = solver.solve(old_peak, kBBNodes, &offs);
      ++dbg_bb; if (found) ++dbg_bbok;
      for (size_t k = 0; k < sub.size(); ++k) {
        const int32_t i = sub[k];
        if (found) cur.offsets[i] = offs[k];
        engine.add(i, cur.offsets[i]);
        ends.emplace(end_of(i), i);
        set_over(i, end_of(i) > lower_bound);
      }
      cur.total = ends.rbegin()->first;
      if (cur.total < best.total) {
        best.total = cur.total;
        best.offsets = cur.offsets;
      }
      continue;
    }
    // Current offsets order, then one perturbation.
    std::stable_sort(hood.begin(), hood.end(), [&](int32_t a, int32_t b) {
      return cur.offsets[a] < cur.offsets[b];
    });
    const size_t m = hood.size();
    // hood[0..keep) keeps its order and offsets; hood[keep..m) is re-placed.
    size_t keep = 0;
    const uint64_t r = rng.below(100);
    if (r < 45) {
      size_t from = static_cast<size_t>(std::find(hood.begin(), hood.end(), target) - hood.begin());
      if (from == m) from = 1 + rng.below(m - 1);  // the target stays put: move another
      if (from == 0) continue;
      static const int kFront = getenv("DP_FRONT") ? atoi(getenv("DP_FRONT")) : 0;
      static const int kNear = getenv("DP_NEAR") ? atoi(getenv("DP_NEAR")) : 0;
      if (kNear) {
        const double u = static_cast<double>(rng.next() >> 11) * (1.0 / 9007199254740992.0);
        double p = u; for (int q = 1; q < kNear; ++q) p *= u;
        keep = from - 1 - static_cast<size_t>(p * static_cast<double>(from));
      } else {
        keep = static_cast<int>(rng.below(100)) < kFront ? 0 : rng.below(from);
      }
      std::rotate(hood.begin() + keep, hood.begin() + from, hood.begin() + from + 1);
    } else if (r < 75) {
      const size_t from = 1 + rng.below(m - 1);
      keep = rng.below(from);
      std::rotate(hood.begin() + keep, hood.begin() + from, hood.begin() + from + 1);
    } else if (r < 92) {
      size_t x = rng.below(m), y = rng.below(m);
      if (x == y) continue;
      if (x > y) std::swap(x, y);
      std::swap(hood[x], hood[y]);
      keep = x;
    } else {
      for (size_t i = m - 1; i > 0; --i) std::swap(hood[i], hood[rng.below(i + 1)]);
    }
    const double temp = temp0 * (1.0 - static_cast<double>(it) / static_cast<double>(iterations));
    const double u = (static_cast<double>(rng.next() >> 11) + 1.0) * (1.0 / 9007199254740993.0);
    const uint64_t slack = static_cast<uint64_t>(-std::log(u) * temp);
    uint64_t old_peak = 0;
    uint64_t new_peak = 0;
    for (size_t k = 0; k < m; ++k) old_peak = std::max(old_peak, end_of(hood[k]));
    for (size_t k = 0; k < keep; ++k) new_peak = std::max(new_peak, end_of(hood[k]));
    old_offsets.resize(m);
    for (size_t k = keep; k < m; ++k) {
      const int32_t i = hood[k];
      old_offsets[k] = cur.offsets[i];
      engine.remove(i);
      ends.erase({end_of(i), i});
    }
    bool ok = true;
    new_offsets.resize(m);
    size_t placed = keep;
    for (; placed < m; ++placed) {
      const int32_t i = hood[placed];
      const uint64_t off = engine.fit_offset(i, PlacementEngine::Fit::kLowest);
      new_offsets[placed] = off;
      new_peak = std::max(new_peak, off + engine.size(i));
      engine.add(i, off);
      if (new_peak > old_peak + slack) {
        ok = false;
        ++placed;
        break;
      }
    }
    static const int kArea = getenv("DP_AREA") ? atoi(getenv("DP_AREA")) : 0;
    if (ok && kArea && new_peak == old_peak) {
      // Secondary: the skyline (per step, the highest end among the neighbourhood's items)
      // summed over the steps it covers must not grow.
      int32_t wlo = INT32_MAX, whi = 0;
      for (int32_t i : hood) {
        wlo = std::min(wlo, engine.first(i));
        whi = std::max(whi, engine.last(i));
      }
      skyline_old.assign(static_cast<size_t>(whi - wlo + 1), 0);
      skyline_new.assign(static_cast<size_t>(whi - wlo + 1), 0);
      for (size_t k = 0; k < m; ++k) {
        const int32_t i = hood[k];
        const uint64_t eo = (k < keep ? cur.offsets[i] : old_offsets[k]) + engine.size(i);
        const uint64_t en = (k < keep ? cur.offsets[i] : new_offsets[k]) + engine.size(i);
        for (int32_t t = engine.first(i); t <= engine.last(i); ++t) {
          uint64_t& so = skyline_old[t - wlo];
          uint64_t& sn = skyline_new[t - wlo];
          so = std::max(so, eo);
          sn = std::max(sn, en);
        }
      }
      unsigned __int128 ao = 0, an = 0;
      for (size_t t = 0; t < skyline_old.size(); ++t) {
        if (kArea == 1) { ao += skyline_old[t]; an += skyline_new[t]; }
        else { ao += skyline_old[t] > lower_bound ? skyline_old[t] - lower_bound : 0; an += skyline_new[t] > lower_bound ? skyline_new[t] - lower_bound : 0; }
      }
      if (an > ao) ok = false;
    }
    if (!ok) {
      for (size_t k = keep; k < placed; ++k) engine.remove(hood[k]);
      for (size_t k = keep; k < m; ++k) {
        engine.add(hood[k], old_offsets[k]);
        ends.emplace(end_of(hood[k]), hood[k]);
      }
      continue;
    }
    ++dbg_acc; if (new_peak < old_peak) ++dbg_better;
    for (size_t k = keep; k < m; ++k) {
      const int32_t i = hood[k];
      cur.offsets[i] = new_offsets[k];
      ends.emplace(end_of(i), i);
      set_over(i, end_of(i) > lower_bound);
    }
    cur.total = ends.rbegin()->first;
    if (cur.total < best.total) {
      best.total = cur.total;
      best.offsets = cur.offsets;
    }
  }
  if (getenv("DP_DBG")) fprintf(stderr, "acc=%zu better=%zu bb=%zu bbok=%zu ", dbg_acc, dbg_better, dbg_bb, dbg_bbok), fprintf(stderr, "improve n=%d iters=%zu avg hood=%.1f total=%lu lb=%lu\n", n, dbg_iters, (double)dbg_hood / std::max<size_t>(dbg_iters, 1), (unsigned long)best.total, (unsigned long)lower_bound);
  return best;
}

bool better(const Candidate& a, const Candidate& b) { return a.total < b.total; }

}  // namespace

Result<OffsetPlan> plan_offsets(const std::vector<PlanItem>& items, PlannerAlgorithm algorithm,
                                const OffsetPlannerOptions& options) {
  if (!is_power_of_two(options.alignment)) {
    return Error(ErrorCode::InvalidArgument,
                 "alignment " + std::to_string(options.alignment) + " is not a power of two");
  }
  OffsetPlan plan;
  plan.algorithm = algorithm;
  plan.offsets.assign(items.size(), 0);
  std::vector<uint64_t> aligned(items.size(), 0);
  uint64_t sum = 0;
  std::vector<int32_t> compact_to_item;
  for (size_t i = 0; i < items.size(); ++i) {
    const PlanItem& it = items[i];
    if (it.first < 0) continue;
    if (it.last < it.first) {
      return Error(ErrorCode::InvalidArgument,
                   "item " + std::to_string(i) + ": lifetime " + std::to_string(it.first) + ".." +
                       std::to_string(it.last) + " ends before it starts");
    }
    if (!align_up(it.size, options.alignment, &aligned[i]) || aligned[i] > UINT64_MAX - sum) {
      return Error(ErrorCode::OutOfResources, "planned sizes overflow uint64");
    }
    sum += aligned[i];
    if (aligned[i] != 0) compact_to_item.push_back(static_cast<int32_t>(i));
  }

  auto run_naive = [&]() {
    OffsetPlan p;
    p.algorithm = PlannerAlgorithm::Naive;
    p.offsets.assign(items.size(), 0);
    uint64_t at = 0;
    for (size_t i = 0; i < items.size(); ++i) {
      if (items[i].first < 0) continue;
      p.offsets[i] = at;
      at += aligned[i];
    }
    p.size = at;
    return p;
  };
  if (algorithm == PlannerAlgorithm::Naive) return run_naive();

  std::vector<uint64_t> sizes;
  std::vector<int32_t> firsts, lasts;
  std::vector<PlanItem> compact_items;
  for (int32_t i : compact_to_item) {
    sizes.push_back(aligned[i]);
    firsts.push_back(items[i].first);
    lasts.push_back(items[i].last);
    compact_items.push_back(PlanItem{aligned[i], items[i].first, items[i].last});
  }
  Problem problem(std::move(sizes), std::move(firsts), std::move(lasts));
  auto to_plan = [&](const Candidate& c, PlannerAlgorithm a) {
    OffsetPlan p;
    p.algorithm = a;
    p.offsets.assign(items.size(), 0);
    for (size_t k = 0; k < compact_to_item.size(); ++k) p.offsets[compact_to_item[k]] = c.offsets[k];
    p.size = compact_to_item.empty() ? 0 : c.total;
    return p;
  };
  using Fit = PlacementEngine::Fit;

  Candidate greedy = problem.evaluate(problem.by_size(), Fit::kLowest);
  if (algorithm == PlannerAlgorithm::Greedy) return to_plan(greedy, algorithm);
  Candidate breadth = problem.evaluate(problem.by_breadth(), Fit::kLowest);
  if (algorithm == PlannerAlgorithm::GreedyBreadth) return to_plan(breadth, algorithm);

  // search: the best seed, then local search.
  const uint64_t lower_bound = live_bytes_lower_bound(compact_items, 1);
  Candidate seed = better(breadth, greedy) ? breadth : greedy;
  std::vector<std::vector<int32_t>> more = {problem.by_conflicts(), problem.by_length(),
                                            problem.by_area(), problem.long_first(greedy.order),
                                            problem.long_first(breadth.order)};
  if (seed.total > lower_bound) {
    for (Fit fit : {Fit::kLowest, Fit::kBest}) {
      for (auto* order : {&greedy.order, &breadth.order}) {
        if (fit == Fit::kLowest) continue;  // evaluated above
        Candidate c = problem.evaluate(*order, fit);
        if (better(c, seed)) seed = std::move(c);
      }
      for (const std::vector<int32_t>& order : more) {
        if (seed.total <= lower_bound) break;
        Candidate c = problem.evaluate(order, fit);
        if (better(c, seed)) seed = std::move(c);
      }
    }
  }
  const int64_t iterations = options.search_iterations >= 0
                                 ? options.search_iterations
                                 : default_search_iterations(problem.size());
  Candidate searched = improve(problem, std::move(seed), iterations, options.seed, lower_bound);
  if (algorithm == PlannerAlgorithm::Search) return to_plan(searched, algorithm);

  // best: the smallest of all, earlier algorithms first on ties.
  OffsetPlan best = run_naive();
  for (auto [c, a] : {std::make_pair(&greedy, PlannerAlgorithm::Greedy),
                      std::make_pair(&breadth, PlannerAlgorithm::GreedyBreadth),
                      std::make_pair(&searched, PlannerAlgorithm::Search)}) {
    OffsetPlan p = to_plan(*c, a);
    if (p.size < best.size) best = std::move(p);
  }
  return best;
}

}  // namespace devplan
