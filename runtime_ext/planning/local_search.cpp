#include <runtime_ext/planning/local_search.h>

#include <algorithm>
#include <set>
#include <utility>

#include <runtime_ext/planning/hood_solver.h>
#include <runtime_ext/planning/split_mix64.h>

namespace devplan {

namespace {

constexpr size_t kMinNeighbourhood = 16;  // a neighbourhood's size cap is drawn in
constexpr size_t kMaxNeighbourhood = 96;  // [kMin, kMax]
constexpr int32_t kLongLifetime = 64;     // steps; longer lifetimes count as long
constexpr int kTopPercent = 50;           // targets taken from the very top of the plan
constexpr int kExactPercent = 10;         // iterations that use HoodSolver
constexpr int64_t kExactBudget = 500;     // HoodSolver nodes per iteration
constexpr size_t kMaxTopChoices = 64;

// The mutable state of one search: offsets, the engine's placement, the ends by height, and
// the items above the lower bound (for picking targets in O(1)).
class Search {
 public:
  Search(PlacementEngine& engine, std::vector<uint64_t> offsets, uint64_t lower_bound)
      : engine_(engine), offsets_(std::move(offsets)), lower_bound_(lower_bound) {
    const int32_t n = static_cast<int32_t>(engine_.num_items());
    over_at_.assign(n, -1);
    engine_.clear();
    std::vector<std::pair<uint64_t, int32_t>> ends(n);
    for (int32_t i = 0; i < n; ++i) {
      engine_.add(i, offsets_[i]);
      ends[i] = {end_of(i), i};
      set_over(i, end_of(i) > lower_bound_);
    }
    // Sorted first: a set built from a sorted range takes linear time.
    std::sort(ends.begin(), ends.end());
    ends_ = std::set<std::pair<uint64_t, int32_t>>(ends.begin(), ends.end());
  }

  uint64_t total() const { return ends_.empty() ? 0 : ends_.rbegin()->first; }
  const std::vector<uint64_t>& offsets() const { return offsets_; }
  uint64_t end_of(int32_t i) const { return offsets_[i] + engine_.size(i); }
  bool has_over() const { return !over_.empty(); }

  int32_t random_over(SplitMix64& rng) const { return over_[rng.below(over_.size())]; }

  int32_t random_top(SplitMix64& rng) const {
    const uint64_t top = total();
    size_t count = 0;
    for (auto it = ends_.rbegin(); it != ends_.rend() && it->first == top && count < kMaxTopChoices;
         ++it) {
      ++count;
    }
    auto it = ends_.rbegin();
    std::advance(it, static_cast<std::ptrdiff_t>(rng.below(count)));
    return it->second;
  }

  // Takes item i out of the engine. Its offset stays recorded until put(): most items are put
  // back where they were, and those cost no update of the ends.
  void take(int32_t i) { engine_.remove(i); }

  // Puts item i (taken out) at `offset`.
  void put(int32_t i, uint64_t offset) {
    engine_.add(i, offset);
    if (offset == offsets_[i]) return;
    ends_.erase({end_of(i), i});
    offsets_[i] = offset;
    ends_.emplace(end_of(i), i);
    set_over(i, end_of(i) > lower_bound_);
  }

 private:
  void set_over(int32_t i, bool is_over) {
    if (is_over && over_at_[i] < 0) {
      over_at_[i] = static_cast<int32_t>(over_.size());
      over_.push_back(i);
    } else if (!is_over && over_at_[i] >= 0) {
      const int32_t moved = over_.back();
      over_[over_at_[i]] = moved;
      over_at_[moved] = over_at_[i];
      over_.pop_back();
      over_at_[i] = -1;
    }
  }

  PlacementEngine& engine_;
  std::vector<uint64_t> offsets_;
  uint64_t lower_bound_;
  std::set<std::pair<uint64_t, int32_t>> ends_;  // (end, item)
  std::vector<int32_t> over_;
  std::vector<int32_t> over_at_;
};

int32_t lifetime(const PlacementEngine& e, int32_t i) { return e.last(i) - e.first(i) + 1; }

// The neighbourhood of `target`: the items whose lifetimes overlap a random window of steps
// around it, at most `cap` of them, without items that live far longer than the window.
void pick_neighbourhood(PlacementEngine& engine, const Search& search, SplitMix64& rng,
                        int32_t target, std::vector<int32_t>* hood) {
  const size_t cap = kMinNeighbourhood + rng.below(kMaxNeighbourhood - kMinNeighbourhood + 1);
  const int32_t len = lifetime(engine, target);
  int32_t lo = 0, hi = -1;
  hood->clear();
  if (len <= kLongLifetime && rng.below(2) == 0) {
    // The target's whole lifetime, widened at random.
    lo = engine.first(target) - static_cast<int32_t>(rng.below(2 * len + 4));
    hi = engine.last(target) + static_cast<int32_t>(rng.below(2 * len + 4));
    engine.collect(lo, hi, hood);
  }
  if (hood->empty() || hood->size() > cap) {
    // Windows around one of its steps, halved until they hold at most `cap` items.
    const int32_t step = engine.first(target) + static_cast<int32_t>(rng.below(len));
    for (int32_t w = static_cast<int32_t>(rng.below(16));; w /= 2) {
      hood->clear();
      lo = step - w;
      hi = step + w;
      engine.collect(lo, hi, hood);
      if (hood->size() <= cap || w == 0) break;
    }
  }
  const int32_t too_long =
      rng.below(16) == 0 ? 16 * kLongLifetime : std::max(kLongLifetime, 4 * (hi - lo + 1));
  hood->erase(std::remove_if(hood->begin(), hood->end(),
                             [&](int32_t i) { return lifetime(engine, i) > too_long; }),
              hood->end());
  if (hood->size() > cap) {
    // The target and the items nearest the top.
    std::stable_sort(hood->begin(), hood->end(), [&](int32_t a, int32_t b) {
      if ((a == target) != (b == target)) return a == target;
      return search.end_of(a) > search.end_of(b);
    });
    hood->resize(cap);
  }
}

}  // namespace

class LocalSearch::State {
 public:
  State(PlacementEngine& engine, const std::vector<uint64_t>& offsets, uint64_t lower_bound,
        uint64_t seed)
      : engine(engine), search(engine, offsets, lower_bound), rng(seed) {}

  // Re-places a neighbourhood of `target`; false when the iteration was skipped (a
  // neighbourhood too small or a perturbation that changes nothing).
  bool step(int32_t target);

  PlacementEngine& engine;
  Search search;
  SplitMix64 rng;
  HoodSolver solver;
  std::vector<int32_t> hood, sub;
  std::vector<uint64_t> old_offsets, new_offsets;
};

bool LocalSearch::State::step(int32_t target) {
  pick_neighbourhood(engine, search, rng, target, &hood);
  if (hood.size() < 2) return false;

  if (static_cast<int>(rng.below(100)) < kExactPercent) {
    // Exact re-placement of the highest items, kept only when their top falls.
    sub = hood;
    std::stable_sort(sub.begin(), sub.end(),
                     [&](int32_t a, int32_t b) { return search.end_of(a) > search.end_of(b); });
    if (sub.size() > HoodSolver::kMaxItems) sub.resize(HoodSolver::kMaxItems);
    uint64_t old_top = 0;
    for (int32_t i : sub) old_top = std::max(old_top, search.end_of(i));
    for (int32_t i : sub) search.take(i);
    solver.reset(engine, sub);
    const bool found = solver.solve(old_top, kExactBudget, &new_offsets);
    for (size_t k = 0; k < sub.size(); ++k) {
      search.put(sub[k], found ? new_offsets[k] : search.offsets()[sub[k]]);
    }
  } else {
    // Current-offset order plus one perturbation; hood[0..keep) keeps its offsets.
    std::stable_sort(hood.begin(), hood.end(), [&](int32_t a, int32_t b) {
      return search.offsets()[a] < search.offsets()[b];
    });
    const size_t m = hood.size();
    size_t keep = 0;
    const uint64_t r = rng.below(100);
    if (r < 75) {
      // Move an item earlier: the target (when in the neighbourhood) or a random one.
      size_t from = static_cast<size_t>(std::find(hood.begin(), hood.end(), target) - hood.begin());
      if (r >= 45 || from == m) from = 1 + rng.below(m - 1);
      if (from == 0) return false;
      keep = rng.below(from);
      std::rotate(hood.begin() + keep, hood.begin() + from, hood.begin() + from + 1);
    } else if (r < 92) {
      size_t x = rng.below(m), y = rng.below(m);
      if (x == y) return false;
      if (x > y) std::swap(x, y);
      std::swap(hood[x], hood[y]);
      keep = x;
    } else {
      for (size_t i = m - 1; i > 0; --i) std::swap(hood[i], hood[rng.below(i + 1)]);
    }
    uint64_t old_top = 0, new_top = 0;
    for (size_t k = 0; k < m; ++k) old_top = std::max(old_top, search.end_of(hood[k]));
    for (size_t k = 0; k < keep; ++k) new_top = std::max(new_top, search.end_of(hood[k]));
    old_offsets.resize(m);
    new_offsets.resize(m);
    for (size_t k = keep; k < m; ++k) {
      old_offsets[k] = search.offsets()[hood[k]];
      search.take(hood[k]);
    }
    size_t placed = keep;
    bool kept = true;
    for (; placed < m; ++placed) {
      const int32_t i = hood[placed];
      const uint64_t off = engine.fit_offset(i, PlacementEngine::Fit::kLowest);
      new_offsets[placed] = off;
      engine.add(i, off);
      new_top = std::max(new_top, off + engine.size(i));
      if (new_top > old_top) {
        kept = false;
        ++placed;
        break;
      }
    }
    for (size_t k = keep; k < placed; ++k) engine.remove(hood[k]);
    for (size_t k = keep; k < m; ++k) search.put(hood[k], kept ? new_offsets[k] : old_offsets[k]);
  }
  return true;
}

LocalSearch::LocalSearch(PlacementEngine& engine, std::vector<uint64_t> offsets, uint64_t total,
                         uint64_t lower_bound, uint64_t seed)
    : engine_(engine), lower_bound_(lower_bound), seed_(seed), best_{std::move(offsets), total} {}

LocalSearch::~LocalSearch() = default;

bool LocalSearch::finished() const {
  return engine_.num_items() < 2 || best_.total <= lower_bound_ ||
         (state_ && !state_->search.has_over());
}

int64_t LocalSearch::run(int64_t iterations) {
  int64_t ran = 0;
  for (; ran < iterations && !finished(); ++ran) {
    if (!state_) state_ = std::make_unique<State>(engine_, best_.offsets, lower_bound_, seed_);
    State& s = *state_;
    if (!s.search.has_over()) break;
    const int32_t target = static_cast<int>(s.rng.below(100)) < kTopPercent
                               ? s.search.random_top(s.rng)
                               : s.search.random_over(s.rng);
    if (s.step(target) && s.search.total() < best_.total) {
      best_.total = s.search.total();
      best_.offsets = s.search.offsets();
    }
  }
  return ran;
}

LocalSearchResult improve_placement(PlacementEngine& engine, std::vector<uint64_t> offsets,
                                    uint64_t total, uint64_t lower_bound, int64_t iterations,
                                    uint64_t seed) {
  LocalSearch search(engine, std::move(offsets), total, lower_bound, seed);
  search.run(iterations);
  return search.best();
}

}  // namespace devplan
