#include <runtime_ext/planning/offset_planner.h>

#include <algorithm>
#include <climits>
#include <optional>

#include <runtime_ext/planning/exact_planner.h>
#include <runtime_ext/planning/local_search.h>
#include <runtime_ext/planning/placement_engine.h>
#include <runtime_ext/planning/range_minimum.h>

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
    case PlannerAlgorithm::Exact:
      return "exact";
    case PlannerAlgorithm::Best:
      return "best";
  }
  return "unknown";
}

std::vector<PlannerAlgorithm> all_planner_algorithms() {
  return {PlannerAlgorithm::Naive,  PlannerAlgorithm::Greedy, PlannerAlgorithm::GreedyBreadth,
          PlannerAlgorithm::Search, PlannerAlgorithm::Exact,  PlannerAlgorithm::Best};
}

Result<PlannerAlgorithm> parse_planner_algorithm(const std::string& name) {
  for (PlannerAlgorithm a : all_planner_algorithms()) {
    if (name == planner_algorithm_name(a)) return a;
  }
  return Error(ErrorCode::InvalidArgument,
               "unknown planner algorithm '" + name +
                   "' (expected naive, greedy, greedy_breadth, search, exact or best)");
}

int64_t default_exact_steps(PlannerAlgorithm algorithm) {
  return algorithm == PlannerAlgorithm::Exact ? 1000000 : 20000;
}

int64_t default_search_iterations(size_t num_items) {
  if (num_items <= 1) return 0;
  return std::clamp<int64_t>(static_cast<int64_t>(num_items) * 20, 5000, 100000);
}

namespace {

// Whether steps in [lo, hi] are few enough, against `count` items, for arrays indexed by step:
// then a pass over the items replaces a sort.
bool dense_steps(int64_t lo, int64_t hi, size_t count) {
  return hi - lo <= 4 * static_cast<int64_t>(count) + 1024;
}

}  // namespace

uint64_t live_bytes_lower_bound(const std::vector<PlanItem>& items, uint64_t alignment) {
  auto aligned = [alignment](uint64_t size) {
    uint64_t out = UINT64_MAX;
    if (!align_up(size, alignment, &out)) out = UINT64_MAX;
    return out;
  };
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  size_t count = 0;
  for (const PlanItem& it : items) {
    if (it.first < 0 || it.last < it.first) continue;
    lo = std::min<int64_t>(lo, it.first);
    hi = std::max<int64_t>(hi, it.last);
    ++count;
  }
  if (count == 0) return 0;
  unsigned __int128 best = 0;
  if (dense_steps(lo, hi, count)) {
    // Live bytes per step from a difference array: +size at first, -size after last.
    std::vector<unsigned __int128> delta(static_cast<size_t>(hi - lo) + 2, 0);
    for (const PlanItem& it : items) {
      if (it.first < 0 || it.last < it.first) continue;
      const uint64_t size = aligned(it.size);
      delta[static_cast<size_t>(it.first - lo)] += size;
      delta[static_cast<size_t>(it.last - lo) + 1] -= size;
    }
    unsigned __int128 live = 0;
    for (size_t s = 0; s + 1 < delta.size(); ++s) {
      live += delta[s];
      best = std::max(best, live);
    }
  } else {
    // A sweep over lifetime ends (any step values): +size at first, -size after last;
    // removals before additions at the same position.
    std::vector<std::pair<std::pair<int64_t, int>, uint64_t>> ev;
    ev.reserve(count * 2);
    for (const PlanItem& it : items) {
      if (it.first < 0 || it.last < it.first) continue;
      const uint64_t size = aligned(it.size);
      ev.push_back({{it.first, 1}, size});
      ev.push_back({{static_cast<int64_t>(it.last) + 1, 0}, size});
    }
    std::sort(ev.begin(), ev.end());
    unsigned __int128 live = 0;
    for (const auto& [key, size] : ev) {
      if (key.second == 1) {
        live += size;
        best = std::max(best, live);
      } else {
        live -= size;
      }
    }
  }
  return best > UINT64_MAX ? UINT64_MAX : static_cast<uint64_t>(best);
}

namespace {

// Local-search iterations per turn of one of the two searches, and how many iterations a
// search may go without improving before the other takes over.
constexpr int64_t kSearchTurn = 64;
constexpr int64_t kSearchPatience = 512;

struct Candidate {
  std::vector<int32_t> order;
  PlacementEngine::Fit fit = PlacementEngine::Fit::kLowest;
  uint64_t total = UINT64_MAX;
  std::vector<uint64_t> offsets;
};

// The planned items with room to take, in compact form, plus the engine over them. Orders
// sort keys where "larger first" is the bitwise complement (~x) ascending.
class Problem {
 public:
  Problem(std::vector<uint64_t> sizes, std::vector<int32_t> firsts, std::vector<int32_t> lasts)
      : engine_(std::move(sizes), std::move(firsts), std::move(lasts)) {}

  PlacementEngine& engine() { return engine_; }
  size_t size() const { return engine_.num_items(); }

  // The items by key_of(item) ascending, ties by index: the order a stable sort by the key
  // gives, from one sort of (key, index) pairs that reads no item's fields while sorting.
  template <typename KeyOf>
  std::vector<int32_t> sorted_by(KeyOf key_of) const {
    using Key = decltype(key_of(0));
    std::vector<std::pair<Key, int32_t>> keyed(size());
    for (size_t i = 0; i < size(); ++i) {
      const int32_t item = static_cast<int32_t>(i);
      keyed[i] = {key_of(item), item};
    }
    std::sort(keyed.begin(), keyed.end());
    std::vector<int32_t> order(size());
    for (size_t i = 0; i < size(); ++i) order[i] = keyed[i].second;
    return order;
  }

  std::vector<int32_t> by_size() const {
    const PlacementEngine& e = engine_;
    return sorted_by([&](int32_t i) { return ~e.size(i); });  // ~: larger first
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
    // Rank of each step: 0 for the widest, ties by step.
    // Live bytes never exceed the sum of sizes, which plan_offsets checked fits in 64 bits: the
    // keys are 64-bit, half the bytes to sort.
    std::vector<std::pair<uint64_t, int32_t>> steps_by_width(steps);
    for (int32_t s = 0; s < steps; ++s) steps_by_width[s] = {~static_cast<uint64_t>(live[s]), s};
    std::sort(steps_by_width.begin(), steps_by_width.end());
    std::vector<int32_t> rank(steps);
    for (int32_t r = 0; r < steps; ++r) rank[steps_by_width[r].second] = r;
    // Range minimum of rank over each lifetime.
    const RangeMinimum widest(std::move(rank));
    std::vector<int32_t> key(size());
    for (size_t i = 0; i < size(); ++i) key[i] = widest.min(e.first(i), e.last(i));
    return sorted_by([&](int32_t i) { return std::make_pair(key[i], ~e.size(i)); });
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
    // A weight is at most the sum of sizes: 64 bits (as for breadth).
    return sorted_by(
        [&](int32_t i) { return std::make_pair(~static_cast<uint64_t>(weight[i]), ~e.size(i)); });
  }

  std::vector<int32_t> by_length() const {
    const PlacementEngine& e = engine_;
    return sorted_by([&](int32_t i) { return std::make_pair(e.first(i) - e.last(i), ~e.size(i)); });
  }

  // Long-lived items (lifetime above four times the mean) first, longest first (as in
  // `by_length`, by_length()'s order); then the rest with `rest` (an order over all items,
  // whose relative order is kept).
  std::vector<int32_t> long_first(const std::vector<int32_t>& rest,
                                  const std::vector<int32_t>& by_length) const {
    const PlacementEngine& e = engine_;
    double mean = 0;
    for (size_t i = 0; i < size(); ++i) mean += e.last(i) - e.first(i) + 1;
    mean /= static_cast<double>(std::max<size_t>(size(), 1));
    std::vector<int32_t> order;
    for (int32_t i : by_length) {
      if (e.last(i) - e.first(i) + 1 > 4 * mean) order.push_back(i);
    }
    for (int32_t i : rest) {
      if (!(e.last(i) - e.first(i) + 1 > 4 * mean)) order.push_back(i);
    }
    return order;
  }

  std::vector<int32_t> by_area() const {
    const PlacementEngine& e = engine_;
    return sorted_by([&](int32_t i) {
      const unsigned __int128 area =
          static_cast<unsigned __int128>(e.size(i)) * (e.last(i) - e.first(i) + 1);
      return std::make_pair(~area, ~e.size(i));
    });
  }

  // Places `order` with `fit`; total kAborted (larger than any) once it exceeds `limit`.
  Candidate evaluate(std::vector<int32_t> order, PlacementEngine::Fit fit,
                     uint64_t limit = UINT64_MAX) {
    Candidate c;
    c.fit = fit;
    c.total = engine_.place(order, fit, limit, &c.offsets);
    c.order = std::move(order);
    return c;
  }

  // An engine over the same items with nothing placed, for a second search.
  PlacementEngine empty_engine() const { return engine_.empty_copy(); }

 private:
  PlacementEngine engine_;
};

bool better(const Candidate& a, const Candidate& b) { return a.total < b.total; }

}  // namespace

namespace {

Result<OffsetPlan> plan_without_bound(const std::vector<PlanItem>& items,
                                      PlannerAlgorithm algorithm,
                                      const OffsetPlannerOptions& options) {
  if (!is_power_of_two(options.alignment)) {
    return Error(ErrorCode::InvalidArgument,
                 "alignment " + std::to_string(options.alignment) + " is not a power of two");
  }
  std::vector<uint64_t> aligned(items.size(), 0);
  uint64_t sum = 0;
  std::vector<int32_t> compact_to_item;  // planned items that take room
  for (size_t i = 0; i < items.size(); ++i) {
    const PlanItem& it = items[i];
    if (it.first < 0) continue;
    if (it.last < it.first) {
      return Error(ErrorCode::InvalidArgument,
                   "item " + std::to_string(i) + ": lifetime " + std::to_string(it.first) + ".." +
                       std::to_string(it.last) + " ends before it starts");
    }
    if (!align_up(it.size, options.alignment, &aligned[i]) || aligned[i] > UINT64_MAX - sum) {
      return Error(ErrorCode::OutOfResources, "the planned sizes (aligned to " +
                                                  std::to_string(options.alignment) +
                                                  ") sum past 2^64 bytes");
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
  // Steps renumbered densely (order kept, so overlaps are too): the engine's step index stays
  // proportional to the item count whatever step values the caller uses.
  if (!firsts.empty()) {
    const int32_t lo = *std::min_element(firsts.begin(), firsts.end());
    const int32_t hi = *std::max_element(lasts.begin(), lasts.end());
    if (dense_steps(lo, hi, firsts.size())) {
      // rank[s - lo]: how many used steps lie below s.
      std::vector<int32_t> rank(static_cast<size_t>(hi - lo) + 2, 0);
      for (int32_t f : firsts) rank[f - lo + 1] = 1;
      for (int32_t l : lasts) rank[l - lo + 1] = 1;
      for (size_t s = 1; s < rank.size(); ++s) rank[s] += rank[s - 1];
      for (int32_t& f : firsts) f = rank[f - lo];
      for (int32_t& l : lasts) l = rank[l - lo];
    } else {
      std::vector<int32_t> points(firsts);
      points.insert(points.end(), lasts.begin(), lasts.end());
      std::sort(points.begin(), points.end());
      points.erase(std::unique(points.begin(), points.end()), points.end());
      auto rank = [&](int32_t step) {
        return static_cast<int32_t>(std::lower_bound(points.begin(), points.end(), step) -
                                    points.begin());
      };
      for (int32_t& f : firsts) f = rank(f);
      for (int32_t& l : lasts) l = rank(l);
    }
  }
  Problem problem(std::move(sizes), std::move(firsts), std::move(lasts));
  auto to_plan = [&](const std::vector<uint64_t>& offsets, uint64_t total, PlannerAlgorithm a) {
    OffsetPlan p;
    p.algorithm = a;
    p.offsets.assign(items.size(), 0);
    for (size_t k = 0; k < compact_to_item.size(); ++k) p.offsets[compact_to_item[k]] = offsets[k];
    p.size = compact_to_item.empty() ? 0 : total;
    return p;
  };
  using Fit = PlacementEngine::Fit;

  Candidate greedy = problem.evaluate(problem.by_size(), Fit::kLowest);
  if (algorithm == PlannerAlgorithm::Greedy)
    return to_plan(greedy.offsets, greedy.total, algorithm);
  Candidate breadth = problem.evaluate(problem.by_breadth(), Fit::kLowest);
  if (algorithm == PlannerAlgorithm::GreedyBreadth) {
    return to_plan(breadth.offsets, breadth.total, algorithm);
  }

  // search: the best of several greedy orders, then the local search from it and, when that
  // does not reach the lower bound, from the best order that places long-lived items first
  // (the local search mostly leaves long-lived items where they are). Half the budget each, in
  // turns.
  const uint64_t lower_bound = live_bytes_lower_bound(compact_items, 1);
  Candidate seed = better(breadth, greedy) ? breadth : greedy;
  Candidate long_seed;
  if (seed.total > lower_bound) {
    // A challenger replaces the seed only when strictly smaller, so its placement stops as
    // soon as it reaches the seed's total: the same winner at a fraction of the work.
    auto challenge = [&](const std::vector<int32_t>& order, Fit fit) {
      Candidate c = problem.evaluate(order, fit, seed.total - 1);
      if (better(c, seed)) seed = std::move(c);
    };
    for (const std::vector<int32_t>* order : {&greedy.order, &breadth.order}) {
      challenge(*order, Fit::kBest);
    }
    const std::vector<int32_t> by_length = problem.by_length();
    {
      const std::vector<int32_t> by_conflicts = problem.by_conflicts();
      const std::vector<int32_t> by_area = problem.by_area();
      for (Fit fit : {Fit::kLowest, Fit::kBest}) {
        for (const std::vector<int32_t>* order : {&by_conflicts, &by_length, &by_area}) {
          challenge(*order, fit);
        }
      }
    }
    Candidate a = problem.evaluate(problem.long_first(greedy.order, by_length), Fit::kLowest);
    Candidate b =
        problem.evaluate(problem.long_first(breadth.order, by_length), Fit::kLowest, a.total - 1);
    long_seed = better(b, a) ? std::move(b) : std::move(a);
    if (better(long_seed, seed)) seed = long_seed;
  }
  const int64_t iterations = options.search_iterations >= 0
                                 ? options.search_iterations
                                 : default_search_iterations(problem.size());
  // The two searches take turns of kSearchTurn iterations, each within its half of the budget,
  // until one reaches the lower bound. The one running keeps the turn while it improves and
  // hands it over after kSearchPatience iterations without improving: a stalled search no
  // longer spends the budget alone, and a progressing one is not slowed down. Whatever the
  // schedule, each search runs at most its half and both run it out unless one reaches the
  // bound, so the plan is never larger than running them one after the other; the schedule
  // depends on iteration counts only, so the plan is the same on every run.
  struct Turns {
    LocalSearch* search;
    int64_t left;
    int64_t stalled;  // iterations since its best last fell
  };
  LocalSearch first(problem.engine(), std::move(seed.offsets), seed.total, lower_bound,
                    options.seed);
  Turns turns[2] = {{&first, iterations / 2, 0}, {nullptr, 0, 0}};
  std::optional<PlacementEngine> second_engine;
  std::optional<LocalSearch> second;
  if (long_seed.total != UINT64_MAX) {
    second_engine.emplace(problem.empty_engine());
    second.emplace(*second_engine, std::move(long_seed.offsets), long_seed.total, lower_bound,
                   options.seed + 1);
    turns[1] = {&*second, iterations - iterations / 2, 0};
  }
  for (int active = 0; turns[active].left > 0 || turns[1 - active].left > 0;) {
    Turns& t = turns[active];
    Turns& other = turns[1 - active];
    if (t.left > 0) {
      const uint64_t before = t.search->best().total;
      const int64_t ran = t.search->run(std::min(t.left, kSearchTurn));
      t.left -= ran;
      if (t.search->finished()) break;
      t.stalled = t.search->best().total < before ? 0 : t.stalled + ran;
    }
    if (other.left > 0 && (t.left == 0 || t.stalled >= kSearchPatience)) {
      other.stalled = 0;
      active = 1 - active;
    }
  }
  const LocalSearchResult& searched =
      second && second->best().total < first.best().total ? second->best() : first.best();
  if (algorithm == PlannerAlgorithm::Search) {
    return to_plan(searched.offsets, searched.total, algorithm);
  }

  // best: the smallest of all, earlier algorithms first on ties.
  OffsetPlan best = run_naive();
  for (OffsetPlan p : {to_plan(greedy.offsets, greedy.total, PlannerAlgorithm::Greedy),
                       to_plan(breadth.offsets, breadth.total, PlannerAlgorithm::GreedyBreadth),
                       to_plan(searched.offsets, searched.total, PlannerAlgorithm::Search)}) {
    if (p.size < best.size) best = std::move(p);
  }
  best.lower_bound = lower_bound;
  if (best.size <= lower_bound && algorithm == PlannerAlgorithm::Best) return best;

  // exact, and best above the bound: the exact search from the best plan, in units of the
  // alignment (every size and offset is a multiple of it).
  const uint64_t unit = options.alignment;
  if (sum / unit > (uint64_t{1} << 62)) return best;  // beyond the exact search's arithmetic
  std::vector<ExactItem> exact_items(compact_items.size());
  std::vector<uint64_t> incumbent(compact_items.size());
  for (size_t k = 0; k < compact_items.size(); ++k) {
    const PlanItem& it = compact_items[k];
    exact_items[k] = ExactItem{it.size / unit, it.first, static_cast<int64_t>(it.last) + 1, 1};
    incumbent[k] = best.offsets[compact_to_item[k]] / unit;
  }
  const int64_t budget =
      options.budget_steps >= 0 ? options.budget_steps : default_exact_steps(algorithm);
  ExactPlan exact = minimize_exact(exact_items, std::move(incumbent), budget);
  std::vector<uint64_t> offsets(exact.offsets.size());
  for (size_t k = 0; k < offsets.size(); ++k) offsets[k] = exact.offsets[k] * unit;
  const uint64_t exact_size = exact.height * unit;
  if (algorithm == PlannerAlgorithm::Exact || exact_size < best.size) {
    best = to_plan(offsets, exact_size, PlannerAlgorithm::Exact);
  }
  best.lower_bound = std::max(lower_bound, exact.lower_bound * unit);
  best.exact_steps = exact.steps;
  return best;
}

}  // namespace

Result<OffsetPlan> plan_offsets(const std::vector<PlanItem>& items, PlannerAlgorithm algorithm,
                                const OffsetPlannerOptions& options) {
  DEVPLAN_ASSIGN_OR_RETURN(OffsetPlan plan, plan_without_bound(items, algorithm, options));
  if (algorithm != PlannerAlgorithm::Exact && algorithm != PlannerAlgorithm::Best) {
    plan.lower_bound = live_bytes_lower_bound(items, options.alignment);
  }
  return plan;
}

}  // namespace devplan
