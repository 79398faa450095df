#include <runtime_ext/planning/exact_planner.h>

#include <algorithm>
#include <climits>
#include <tuple>
#include <unordered_set>

#include <runtime_ext/planning/block_decomposition.h>
#include <runtime_ext/planning/segment_trees.h>
#include <runtime_ext/planning/split_mix64.h>

namespace devplan {

namespace {

uint64_t round_up(uint64_t value, uint64_t alignment) {
  const uint64_t rest = value % alignment;
  return rest == 0 ? value : value + (alignment - rest);
}

// A plan from the items' blocks, or none (defined below, after the search it runs).
ExactDecision decide_by_blocks(const std::vector<ExactItem>& items, uint64_t capacity,
                               int64_t budget);

// The search over one set of items; decide() may run many times with other capacities.
//
// Temporal decomposition: once no remaining item crosses some point in time, the items on
// either side are independent problems (they share no section). The search then solves the
// pieces ("components") one after another; when one fails, the node that split fails at
// once instead of retrying the choices made in the pieces before it.
class ExactSearch {
 public:
  // `blocks`: decide() first tries to pack the instance's blocks (see block_decomposition.h).
  explicit ExactSearch(const std::vector<ExactItem>& items, bool blocks = true)
      : items_(items), blocks_(blocks) {
    std::vector<int64_t> points;
    for (const ExactItem& it : items) {
      if (it.size == 0) continue;
      points.push_back(it.lower);
      points.push_back(it.upper);
    }
    std::sort(points.begin(), points.end());
    points.erase(std::unique(points.begin(), points.end()), points.end());
    sections_ = points.empty() ? 0 : static_cast<int32_t>(points.size()) - 1;
    auto section_of = [&](int64_t point) {
      return static_cast<int32_t>(std::lower_bound(points.begin(), points.end(), point) -
                                  points.begin());
    };
    start_.assign(items.size(), -1);
    end_.assign(items.size(), -1);
    SplitMix64 keys(0x5eed);
    key_.resize(items.size());
    for (uint64_t& k : key_) k = keys.next();
    starting_.resize(static_cast<size_t>(sections_));
    live_.assign(static_cast<size_t>(sections_) + 1, 0);
    for (size_t i = 0; i < items.size(); ++i) {
      if (items[i].size == 0) continue;
      start_[i] = section_of(items[i].lower);
      end_[i] = section_of(items[i].upper) - 1;
      starting_[start_[i]].push_back(static_cast<int32_t>(i));
      ++sized_items_;
      live_[start_[i]] += items[i].size;
      live_[end_[i] + 1] -= items[i].size;
    }
    for (int32_t s = 1; s < sections_; ++s) live_[s] += live_[s - 1];
    cover_position_.resize(items.size());
    for (size_t i = 0; i < items.size(); ++i) {
      if (start_[i] >= 0) cover_position_[i].resize(static_cast<size_t>(end_[i] - start_[i] + 1));
    }
    visited_.assign(items.size(), 0);
    // Candidates at a section, in one of several orders (the search restarts with each in
    // turn): the longest lifetime first, the largest first, the largest area first, then
    // random orders of the kinds of items. Interchangeable items end up next to each other in
    // every order.
    for (int order = 0; order < kOrders; ++order) {
      orders_[order] = starting_;
      for (std::vector<int32_t>& list : orders_[order]) {
        std::sort(list.begin(), list.end(), [&](int32_t x, int32_t y) {
          const uint64_t sx = items_[x].size, sy = items_[y].size;
          const int64_t wx = end_[x] - start_[x] + 1, wy = end_[y] - start_[y] + 1;
          if (order == 1 && sx != sy) return sx > sy;
          if (order >= 3) {
            // A random order of the kinds of items (interchangeable ones stay together).
            const auto kind = [&](int32_t i) {
              uint64_t h = 0x9e3779b97f4a7c15ull * static_cast<uint64_t>(order + 1);
              for (uint64_t v :
                   {items_[i].size, static_cast<uint64_t>(end_[i]), items_[i].alignment}) {
                h = (h ^ v) * 0xbf58476d1ce4e5b9ull;
                h ^= h >> 31;
              }
              return h;
            };
            const uint64_t kx = kind(x), ky = kind(y);
            if (kx != ky) return kx < ky;
          }
          if (order == 2) {
            const unsigned __int128 ax = static_cast<unsigned __int128>(sx) * wx;
            const unsigned __int128 ay = static_cast<unsigned __int128>(sy) * wy;
            if (ax != ay) return ax > ay;
          }
          if (wx != wy) return wx > wy;
          if (sx != sy) return sx > sy;
          if (items_[x].alignment != items_[y].alignment) {
            return items_[x].alignment > items_[y].alignment;
          }
          return x < y;
        });
      }
    }
  }

  // Restarts: each strategy in turn gets kFirstRun steps, twice as many every round, until
  // one run decides or the budget is spent. A strategy is a candidate order with one of two
  // ways to branch (see choose_branch): the first round tries the three structured orders
  // branching at the runs' first sections; every later round adds a random order, up to
  // kOrders, and tries its orders both ways (a small budget, like best's, stays with the
  // first way and the structured orders; a large one spreads over more). Failed states stay
  // known across runs (they fail whichever way the search branches), so a restart does not
  // search again what an earlier run refuted. A search's time grows steeply on the few
  // instances where its first choices go wrong; restarting another way bounds that tail.
  ExactDecision decide(uint64_t capacity, int64_t budget,
                       ExactBranching branching = ExactBranching::Restarts) {
    ExactDecision out;
    capacity_ = capacity;
    failed_.clear();
    if (branching != ExactBranching::Restarts) {
      candidates_ = &orders_[0];
      any_point_ = branching == ExactBranching::AnyFullPoint;
      return search(budget);
    }
    // Every buffer placed is a node, so with fewer nodes than buffers no plan comes of blocks.
    const int64_t block_budget = budget / kBlockShare;
    if (blocks_ && block_budget >= sized_items_ && sized_items_ > 0 &&
        full_sections_meet(capacity)) {
      // A plan from the blocks answers at once where blocks tile the instance; where none
      // comes of them, the search below starts on what is left of the budget.
      ExactDecision d = decide_by_blocks(items_, capacity, block_budget);
      if (d.outcome == ExactOutcome::Fits) return d;
      out.steps = d.steps;
    }
    int orders = kFirstOrders;
    for (int64_t run = kFirstRun;; run *= 2, orders = std::min(orders + 1, kOrders)) {
      // The first round branches at the runs' first sections only; later rounds then try each
      // order again branching at any full point.
      const int ways = run == kFirstRun ? 1 : 2;
      for (int strategy = 0; strategy < ways * orders; ++strategy) {
        const int64_t left = budget - out.steps;
        // The first run always starts: what needs no search (nothing to place, a section
        // over the capacity) is answered whatever the budget.
        if (left <= 0 && !(run == kFirstRun && strategy == 0)) {
          out.outcome = ExactOutcome::BudgetExhausted;
          return out;
        }
        candidates_ = &orders_[strategy % orders];
        any_point_ = strategy >= orders;
        ExactDecision d = search(std::max<int64_t>(std::min(left, run), 0));
        out.steps += d.steps;
        if (d.outcome != ExactOutcome::BudgetExhausted) {
          d.steps = out.steps;
          return d;
        }
      }
    }
  }

 private:
  // Whether two neighbouring sections are full at `capacity` (blocks form only there).
  bool full_sections_meet(uint64_t capacity) const {
    for (int32_t s = 1; s < sections_; ++s) {
      if (live_[s - 1] == capacity && live_[s] == capacity) return true;
    }
    return false;
  }

  static constexpr int kOrders = 8;
  static constexpr int64_t kBlockShare = 4;  // the blocks' plan gets a quarter of the budget
  static constexpr int kFirstOrders = 3;     // the orders of the first round; one more each round
  static constexpr int64_t kFirstRun = 2000;

  ExactDecision search(int64_t budget) {
    ExactDecision out;
    if (!reset()) {
      out.outcome = ExactOutcome::DoesNotFit;
      return out;
    }
    if (remaining_count_ == 0) return fits(&out);
    if (!sections_can_hold(0, sections_ - 1)) {
      out.outcome = ExactOutcome::DoesNotFit;
      return out;
    }
    stack_.clear();
    open_scope(0, sections_ - 1, -1, true);
    out.steps = 1;
    while (!stack_.empty()) {
      Frame& frame = stack_.back();
      if (frame.is_split) {  // backtracked onto: one of its components failed
        stack_.pop_back();
        continue;
      }
      undo_child(frame);
      if (!next_child(frame)) {
        fail_node();
        continue;
      }
      if (remaining_count_ == 0) return fits(&out);
      if (out.steps >= budget) {
        out.outcome = ExactOutcome::BudgetExhausted;
        return out;
      }
      ++out.steps;
      Frame& parent = stack_.back();
      // Only sections under items that overlap what the child changed can have lost room.
      const auto [lo, hi] = parent.placed >= 0
                                ? affected(start_[parent.placed], end_[parent.placed])
                                : affected(parent.section, parent.section);
      if (!sections_can_hold(lo, hi)) continue;  // undone on the next turn
      const bool cut = parent.placed >= 0 && cut_made_;
      open_scope(parent.lo, parent.hi, parent.owner, cut);
    }
    out.outcome = ExactOutcome::DoesNotFit;
    return out;
  }

  // A node's state within its scope: the scope, its floors and the items left to place there,
  // as two independent 64-bit hashes (a collision, the only way a state could be mistaken
  // for a failed one, has odds around 2^-100 per pair of states).
  struct StateKey {
    uint64_t a = 0, b = 0;
    bool operator==(const StateKey& o) const { return a == o.a && b == o.b; }
  };
  struct StateKeyHash {
    size_t operator()(const StateKey& k) const { return static_cast<size_t>(k.a); }
  };
  // Failed states remembered per decision; beyond this many, no more are added (memory).
  static constexpr size_t kMaxFailedStates = size_t{1} << 21;

  StateKey state_key(int32_t lo, int32_t hi) const {
    StateKey k{0x243f6a8885a308d3ull ^ static_cast<uint64_t>(lo),
               0x13198a2e03707344ull ^ static_cast<uint64_t>(hi)};
    for (int32_t s = lo; s <= hi; ++s) {
      k.a = (k.a ^ floor_[s]) * 0x9e3779b97f4a7c15ull;
      k.a = (k.a ^ ceiling_[s]) * 0xff51afd7ed558ccdull;
      k.a = (k.a ^ start_keys_[s]) * 0xbf58476d1ce4e5b9ull;
      k.b = (k.b + floor_[s] * 0x94d049bb133111ebull) ^ (k.b >> 29);
      k.b = (k.b + ceiling_[s] * 0xc4ceb9fe1a85ec53ull) ^ (k.b >> 31);
      k.b = (k.b + (start_keys_[s] | 1) * 0xd6e8feb86659fd93ull) ^ (k.b >> 32);
    }
    return k;
  }

  void set_floors(int32_t l, int32_t r, uint64_t value) {
    for (int32_t s = l; s <= r; ++s) floor_[s] = value;
  }
  void set_ceilings(int32_t l, int32_t r, uint64_t value) {
    for (int32_t s = l; s <= r; ++s) ceiling_[s] = value;
  }
  // The room a section has beyond what remains to place in it.
  uint64_t slack(int32_t s) const { return ceiling_[s] - floor_[s] - remaining_bytes_[s]; }

  // A node (it branches on one section of its scope) or a split (its scope's components).
  struct Frame {
    bool is_split = false;
    int32_t lo = 0, hi = 0;  // scope: the sections the node may branch on
    int32_t owner = -1;      // stack index of the split whose component this is; -1: none
    bool first = false;      // the first node of its component
    // A node:
    int32_t section = 0;
    int32_t run_end = 0;         // last section of the run at `level`
    int32_t point = 0;           // the run's section whose point at the level children cover
    bool top = false;            // the run is one of ceilings (items hang from it), not of floors
    uint64_t level = 0;          // the run's floor, or its ceiling
    std::vector<int32_t> order;  // the candidates, flush ones first (see next_child)
    bool ordered = false;        // order is filled
    size_t cursor = 0;           // next candidate in order
    int32_t placed = -1;         // the item the current child placed
    int32_t tried = -1;          // the last item tried, to skip its interchangeable twins
    bool raise_tried = false;
    bool raised = false;   // the current child raised the floor (never on a ceiling)
    bool hatless = false;  // the current child placed an item no remaining item overlaps
    bool done = false;     // no child is left to try
    StateKey state;        // the node's state when it opened, remembered when it fails
    // A split:
    std::vector<std::pair<int32_t, int32_t>> components;
    size_t current = 0;
  };

  bool reset() {
    std::vector<uint64_t> floors(static_cast<size_t>(sections_), 0);
    remaining_bytes_.assign(static_cast<size_t>(sections_), 0);
    crossing_.assign(static_cast<size_t>(sections_), 0);
    remaining_.assign(items_.size(), 0);
    offsets_.assign(items_.size(), 0);
    lowest_.assign(static_cast<size_t>(sections_), UINT64_MAX);
    highest_.assign(static_cast<size_t>(sections_), 0);
    covered_.assign(static_cast<size_t>(sections_) + 1, 0);
    reached_.assign(static_cast<size_t>(sections_) + 1, 0);
    over_.assign(static_cast<size_t>(sections_) + 1, 0);
    starts_left_ = CountTree(static_cast<size_t>(sections_));
    start_keys_.assign(static_cast<size_t>(sections_), 0);
    remaining_count_ = 0;
    covering_.assign(static_cast<size_t>(sections_), {});
    for (size_t i = 0; i < items_.size(); ++i) {
      if (start_[i] < 0) continue;
      cover(static_cast<int32_t>(i));
      remaining_[i] = 1;
      ++remaining_count_;
      starts_left_.add(static_cast<size_t>(start_[i]), 1);
      start_keys_[start_[i]] ^= key_[i];
      for (int32_t s = start_[i]; s <= end_[i]; ++s) remaining_bytes_[s] += items_[i].size;
      for (int32_t s = start_[i] + 1; s <= end_[i]; ++s) ++crossing_[s];
    }
    for (int32_t s = 0; s < sections_; ++s) {
      if (remaining_bytes_[s] > capacity_) return false;
      if (remaining_bytes_[s] == 0) floors[s] = capacity_;  // nothing to place: closed
    }
    floor_ = floors;
    ceiling_.assign(static_cast<size_t>(sections_), capacity_);
    smallest_start_ = MinTree(static_cast<size_t>(sections_), UINT64_MAX);
    for (int32_t s = 0; s < sections_; ++s) refresh_smallest_start(s);
    return true;
  }

  ExactDecision& fits(ExactDecision* out) {
    out->outcome = ExactOutcome::Fits;
    out->offsets = offsets_;
    return *out;
  }

  // The ranges of [lo, hi] that no remaining item joins, those with items to place.
  std::vector<std::pair<int32_t, int32_t>> components(int32_t lo, int32_t hi) const {
    std::vector<std::pair<int32_t, int32_t>> out;
    for (int32_t s = lo; s <= hi;) {
      int32_t e = s;
      while (e + 1 <= hi && crossing_[e + 1] > 0) ++e;
      if (remaining_bytes_[s] > 0) out.push_back({s, e});
      s = e + 1;
    }
    return out;
  }

  // Pushes the next node for the scope [lo, hi] of `owner`: split into components first when
  // `may_split`; a scope with nothing left completes its component, and the owner's next
  // component (or, the owner done, the owner's own scope) goes on.
  void open_scope(int32_t lo, int32_t hi, int32_t owner, bool may_split) {
    bool first = false;
    if (may_split) {
      std::vector<std::pair<int32_t, int32_t>> parts = components(lo, hi);
      if (parts.size() >= 2) {
        Frame split;
        split.is_split = true;
        split.lo = lo, split.hi = hi, split.owner = owner;
        split.components = std::move(parts);
        stack_.push_back(std::move(split));
        owner = static_cast<int32_t>(stack_.size()) - 1;
        std::tie(lo, hi) = stack_.back().components[0];
        first = true;
      } else if (parts.size() == 1) {
        std::tie(lo, hi) = parts[0];
      }
    }
    while (starts_left_.sum(static_cast<size_t>(lo), static_cast<size_t>(hi)) == 0) {
      Frame& split = stack_[owner];  // the root scope holds every remaining item
      if (++split.current < split.components.size()) {
        std::tie(lo, hi) = split.components[split.current];
        first = true;
        break;
      }
      lo = split.lo, hi = split.hi, owner = split.owner;
      first = false;
    }
    Frame f;
    f.lo = lo, f.hi = hi, f.owner = owner, f.first = first;
    const Branch branch = choose_branch(lo, hi);
    f.section = branch.section;
    f.point = branch.point;
    f.run_end = branch.run_end;
    f.top = branch.top;
    f.level = branch.level;
    // A ceiling is never lowered, and a point with no slack is never waste (see choose_branch).
    f.raise_tried = branch.top || branch.point != branch.section;
    // The same state failed before (reached by placing the same items in another order):
    // it fails again.
    f.state = state_key(lo, hi);
    f.done = failed_.count(f.state) > 0;
    stack_.push_back(std::move(f));
  }

  // The node on top has no child left: pop it; when it was the first of a component, the
  // component failed and with it the split, whatever its earlier components hold.
  void fail_node() {
    const int32_t owner = stack_.back().owner;
    const bool first = stack_.back().first;
    if (failed_.size() < kMaxFailedStates) failed_.insert(stack_.back().state);
    stack_.pop_back();
    if (!first || owner < 0) return;
    while (static_cast<int32_t>(stack_.size()) > owner + 1) {
      if (!stack_.back().is_split) undo_child(stack_.back());
      stack_.pop_back();
    }
    stack_.pop_back();  // the split; its parent node tries its next child
  }

  void refresh_smallest_start(int32_t section) {
    uint64_t smallest = UINT64_MAX;
    for (int32_t i : starting_[section]) {
      if (remaining_[i]) smallest = std::min(smallest, items_[i].size);
    }
    smallest_start_.set(static_cast<size_t>(section), smallest);
  }

  // Same lifetime, size and alignment: either can take the other's place.
  bool interchangeable(int32_t x, int32_t y) const {
    return start_[x] == start_[y] && end_[x] == end_[y] && items_[x].size == items_[y].size &&
           items_[x].alignment == items_[y].alignment;
  }

  void undo_child(Frame& frame) {
    if (frame.placed >= 0) {
      const int32_t i = frame.placed;
      const uint64_t size = items_[i].size;
      for (int32_t s = start_[i]; s <= end_[i]; ++s) remaining_bytes_[s] += size;
      for (int32_t s = start_[i] + 1; s <= end_[i]; ++s) ++crossing_[s];
      if (frame.top) {
        set_ceilings(start_[i], end_[i], frame.level);
      } else {
        set_floors(start_[i], end_[i], frame.level);
      }
      remaining_[i] = 1;
      cover(i);
      ++remaining_count_;
      starts_left_.add(static_cast<size_t>(start_[i]), 1);
      start_keys_[start_[i]] ^= key_[i];
      refresh_smallest_start(start_[i]);
      frame.placed = -1;
      // A failed item that overlaps nothing left to place fails wherever it goes: the rest
      // of the problem is the same whether it sits here or anywhere else.
      if (frame.hatless) frame.done = true;
    } else if (frame.raised) {
      set_floors(frame.section, frame.section, frame.level);
      frame.raised = false;
    }
  }

  // Applies the frame's next child; false when none is left.
  bool next_child(Frame& frame) {
    if (frame.done) return false;
    if (!frame.ordered) {
      // The node's own state: its children are undone before each next one.
      frame.ordered = true;
      // The items in the run that cover the point.
      for (int32_t t = frame.section; t <= frame.point; ++t) {
        for (int32_t i : (*candidates_)[t]) {
          if (remaining_[i] && end_[i] >= frame.point && end_[i] <= frame.run_end) {
            frame.order.push_back(i);
          }
        }
      }
      // Tilings line edges up: an item whose far edge meets a neighbour's level, or closes a
      // section, is more often right. Stable, so interchangeable items stay side by side.
      std::stable_partition(frame.order.begin(), frame.order.end(),
                            [&](int32_t i) { return ends_flush(frame, i); });
    }
    while (frame.cursor < frame.order.size()) {
      const int32_t i = frame.order[frame.cursor++];
      if (frame.tried >= 0 && interchangeable(i, frame.tried)) continue;
      frame.tried = i;
      const uint64_t at = frame.top ? hang_at(i, frame.level) : sit_at(i, frame.level);
      if (at == kNoRoom) continue;
      const uint64_t size = items_[i].size;
      bool hatless = true;
      for (int32_t s = start_[i]; s <= end_[i]; ++s) {
        remaining_bytes_[s] -= size;
        hatless = hatless && remaining_bytes_[s] == 0;
      }
      cut_made_ = false;
      for (int32_t s = start_[i] + 1; s <= end_[i]; ++s) cut_made_ |= --crossing_[s] == 0;
      frame.hatless = hatless;
      if (frame.top) {
        set_ceilings(start_[i], end_[i], at);
      } else {
        set_floors(start_[i], end_[i], at + size);
      }
      remaining_[i] = 0;
      uncover(i);
      --remaining_count_;
      starts_left_.add(static_cast<size_t>(start_[i]), -1);
      start_keys_[start_[i]] ^= key_[i];
      offsets_[i] = at;
      refresh_smallest_start(start_[i]);
      frame.placed = i;
      return true;
    }
    if (frame.raise_tried) return false;
    frame.raise_tried = true;
    const int32_t a = frame.section;
    const uint64_t raise = raise_height(a, frame.run_end, frame.level, frame.lo, frame.hi);
    if (raise == kNoRaise) return false;
    set_floors(a, a, raise);
    frame.raised = true;
    return true;
  }

  static constexpr uint64_t kNoRaise = UINT64_MAX;

  // Whether item i, placed at the frame's level, has its far edge (its top on a floor, its
  // offset under a ceiling) at the level of a neighbouring section in the scope that still has
  // items to place, or at the other side of a section under it (closing it).
  bool ends_flush(const Frame& frame, int32_t i) const {
    const int32_t a = start_[i], b = end_[i];
    const uint64_t size = items_[i].size, alignment = items_[i].alignment;
    if (frame.top && frame.level < size) return false;
    const uint64_t edge = frame.top ? (frame.level - size) / alignment * alignment
                                    : round_up(frame.level, alignment) + size;
    const std::vector<uint64_t>& same = frame.top ? ceiling_ : floor_;
    const std::vector<uint64_t>& other = frame.top ? floor_ : ceiling_;
    if (a > frame.lo && remaining_bytes_[a - 1] > 0 && same[a - 1] == edge) return true;
    if (b < frame.hi && remaining_bytes_[b + 1] > 0 && same[b + 1] == edge) return true;
    for (int32_t t = a; t <= b; ++t) {
      if (other[t] == edge) return true;
    }
    return false;
  }

  // The run [a, run_end] at `floor` when nothing sits at the floor in section a: the lowest
  // item there sits at least as high as a neighbouring floor in the scope (it starts earlier or
  // ends later than the run; a neighbour with nothing left to place has no such item) or on an
  // item that starts inside the run. kNoRaise when what remains in a no longer fits above it.
  uint64_t raise_height(int32_t a, int32_t run_end, uint64_t floor, int32_t lo, int32_t hi) const {
    const uint64_t bytes = remaining_bytes_[a];
    if (bytes == 0) return ceiling_[a];  // nothing left here: the section closes
    uint64_t raise = ceiling_[a];
    if (a > lo && remaining_bytes_[a - 1] > 0) raise = std::min(raise, floor_[a - 1]);
    if (run_end < hi && remaining_bytes_[run_end + 1] > 0) {
      raise = std::min(raise, floor_[run_end + 1]);
    }
    const uint64_t smallest =
        smallest_start_.min(static_cast<size_t>(a) + 1, static_cast<size_t>(run_end), UINT64_MAX);
    if (smallest != UINT64_MAX) raise = std::min(raise, floor + smallest);
    return raise + bytes > ceiling_[a] ? kNoRaise : raise;
  }

  struct Branch {
    int32_t section = 0;
    int32_t run_end = 0;
    int32_t point = 0;
    bool top = false;
    uint64_t level = 0;
  };

  static constexpr uint64_t kNoRoom = UINT64_MAX;

  // Where item i sits on `floor` (rounded up to its alignment), every section under it still
  // holding what remains there between it and the ceiling; kNoRoom when one does not.
  uint64_t sit_at(int32_t i, uint64_t floor) const {
    const uint64_t at = round_up(floor, items_[i].alignment);
    for (int32_t s = start_[i]; s <= end_[i]; ++s) {
      if (at + remaining_bytes_[s] > ceiling_[s]) return kNoRoom;
    }
    return at;
  }

  // Where item i hangs from `ceiling` (its offset rounded down to its alignment), every
  // section under it still holding what remains there between the floor and it; kNoRoom when
  // one does not.
  uint64_t hang_at(int32_t i, uint64_t ceiling) const {
    const uint64_t size = items_[i].size;
    if (ceiling < size) return kNoRoom;
    const uint64_t at = (ceiling - size) / items_[i].alignment * items_[i].alignment;
    for (int32_t s = start_[i]; s <= end_[i]; ++s) {
      if (floor_[s] + remaining_bytes_[s] - size > at) return kNoRoom;
    }
    return at;
  }

  // For the run [l, r] at `level` (a local minimum of the floors, or with `top` a local maximum
  // of the ceilings): covered_[t] for t in [l, r + 1], whether sections t..r can be covered at
  // the level. Every point of the run at the level lies in an item that sits on it (hangs from
  // it), or is waste, which a section can only take when it has slack: so the run is a chain of
  // items at the level, each starting where the one before ends, and of single sections left
  // empty where there is slack. A run with no such chain is a dead end; an item after which the
  // chain cannot go on is no child.
  void chain_cover(int32_t l, int32_t r, bool top, uint64_t level) {
    covered_[r + 1] = 1;
    for (int32_t t = r; t >= l; --t) {
      bool c = slack(t) > 0 && covered_[t + 1];
      for (size_t k = 0; !c && k < starting_[t].size(); ++k) {
        const int32_t i = starting_[t][k];
        c = remaining_[i] && end_[i] <= r && covered_[end_[i] + 1] &&
            (top ? hang_at(i, level) : sit_at(i, level)) != kNoRoom;
      }
      covered_[t] = c;
    }
  }

  // The children a node at the run [l, r] would have (after chain_cover): the distinct items
  // that can sit on (hang from) the level and leave a chain behind them, plus, on a floor, the
  // raise when it is possible. Counting stops at `enough`.
  size_t children(int32_t l, int32_t r, bool top, uint64_t level, int32_t lo, int32_t hi,
                  size_t enough) const {
    if (!covered_[l]) return 0;
    size_t n = top || raise_height(l, r, level, lo, hi) == kNoRaise ? 0 : 1;
    int32_t previous = -1;
    for (int32_t i : (*candidates_)[l]) {
      if (n >= enough) return n;
      if (!remaining_[i] || end_[i] > r || !covered_[end_[i] + 1]) continue;
      if (previous >= 0 && interchangeable(i, previous)) continue;
      previous = i;
      n += (top ? hang_at(i, level) : sit_at(i, level)) != kNoRoom;
    }
    return n;
  }

  // The other points of the run [l, r] at `level` (after chain_cover), in sections without
  // slack: such a point cannot be waste, so it lies in an item that sits on the level (hangs
  // from it) within the run, and branching on the items over it is complete too. Counts each
  // point's children (the distinct items over it that fit, with chains left on both sides) and
  // keeps in *best the point with the fewest, when they are fewer than *best_children: with
  // any_point_ any such point, else only a dead end or a forced placement (the runs' first
  // sections do the branching). True when the point found is a dead end or forced.
  bool full_point(int32_t l, int32_t r, bool top, uint64_t level, Branch* best,
                  size_t* best_children) {
    // reached_[t]: sections l..t-1 can be covered at the level; over_[t]: the change, at t, in
    // the number of items that fit and cover t.
    reached_[l] = 1;
    for (int32_t t = l + 1; t <= r + 1; ++t) reached_[t] = 0;
    for (int32_t t = l; t <= r + 1; ++t) over_[t] = 0;
    for (int32_t t = l; t <= r; ++t) {
      if (!reached_[t]) continue;
      if (slack(t) > 0) reached_[t + 1] = 1;
      int32_t previous = -1;
      for (int32_t i : (*candidates_)[t]) {
        if (!remaining_[i] || end_[i] > r) continue;
        if (previous >= 0 && interchangeable(i, previous)) continue;
        previous = i;
        if ((top ? hang_at(i, level) : sit_at(i, level)) == kNoRoom) continue;
        reached_[end_[i] + 1] = 1;
        if (covered_[end_[i] + 1]) {
          ++over_[t];
          --over_[end_[i] + 1];
        }
      }
    }
    int32_t over = over_[l];
    for (int32_t t = l + 1; t <= r; ++t) {
      over += over_[t];
      if (slack(t) != 0) continue;
      const size_t n = static_cast<size_t>(over);
      if (n >= *best_children || (!any_point_ && n > 1)) continue;
      *best = Branch{l, r, t, top, level};
      *best_children = n;
      if (n <= 1) return true;
    }
    return false;
  }

  // The run to branch on. Every local minimum of the floors in [lo, hi] (a maximal run of
  // sections at one floor whose neighbours in the scope are higher or have nothing left to
  // place) must hold at its floor an item that starts at its first section and ends within it,
  // or have its first section raised, in some plan if in any (let the items not yet placed
  // fall as far as they can: the lowest one there then sits on the floor or on another).
  // Likewise every local maximum of the ceilings whose first section has no slack must hold
  // an item hanging from its ceiling, starting at its first section and ending within it: that
  // point of the section cannot be waste, and whatever covers it can go no higher, and not
  // past the run. The same holds at any point of such a run (of floors or of ceilings) whose
  // section has no slack, with the items that cover that section (full_point). Branching on
  // any of these keeps the search complete. The search takes the one with the fewest children
  // (a floor before a ceiling, then the leftmost), so that forced placements go first and a
  // dead end is met at once, as in exact-cover search; building the plan from both sides finds
  // a wrong choice near one side sooner. Branching at the runs' first sections and branching
  // at any full point each solve instances the other does not, so the restarts take turns.
  Branch choose_branch(int32_t lo, int32_t hi) {
    Branch best;
    size_t best_children = SIZE_MAX;
    for (int side = 0; side < 2; ++side) {
      const bool top = side == 1;
      const std::vector<uint64_t>& level = top ? ceiling_ : floor_;
      // `beyond(t, v)`: section t (a neighbour of a run at v) bounds the run.
      const auto beyond = [&](int32_t t, uint64_t v) {
        return remaining_bytes_[t] == 0 || (top ? level[t] < v : level[t] > v);
      };
      for (int32_t s = lo; s <= hi;) {
        if (remaining_bytes_[s] == 0) {
          ++s;
          continue;
        }
        const uint64_t v = level[s];
        int32_t e = s;
        while (e < hi && remaining_bytes_[e + 1] > 0 && level[e + 1] == v) ++e;
        const bool bounded = (s == lo || beyond(s - 1, v)) && (e == hi || beyond(e + 1, v));
        if (bounded && (!top || slack(s) == 0)) {
          chain_cover(s, e, top, v);
          const size_t n = children(s, e, top, v, lo, hi, best_children);
          if (n < best_children) {
            best = Branch{s, e, s, top, v};
            best_children = n;
            if (n <= 1) return best;  // a dead end, or a forced placement
          }
        }
        if (bounded && e > s) {
          // covered_ is this run's already, unless a ceiling run's first section had slack.
          if (top && slack(s) != 0) chain_cover(s, e, top, v);
          if (full_point(s, e, top, v, &best, &best_children)) return best;
        }
        s = e + 1;
      }
    }
    return best;
  }

  // covering_ holds item i (remaining again) / no longer holds it (placed).
  void cover(int32_t i) {
    for (int32_t s = start_[i]; s <= end_[i]; ++s) {
      cover_position_[i][s - start_[i]] = static_cast<int32_t>(covering_[s].size());
      covering_[s].push_back(i);
    }
  }
  void uncover(int32_t i) {
    for (int32_t s = start_[i]; s <= end_[i]; ++s) {
      const int32_t k = cover_position_[i][s - start_[i]];
      const int32_t last = covering_[s].back();
      covering_[s][k] = last;
      cover_position_[last][s - start_[last]] = k;
      covering_[s].pop_back();
    }
  }

  // The sections under the remaining items that overlap [a, b], and [a, b] itself.
  std::pair<int32_t, int32_t> affected(int32_t a, int32_t b) const {
    int32_t lo = a, hi = b;
    for (int32_t s = a; s <= b; ++s) {
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
  bool sections_can_hold(int32_t lo, int32_t hi) {
    ++visit_;
    for (int32_t s = lo; s <= hi; ++s) {
      lowest_[s] = UINT64_MAX;
      highest_[s] = 0;
    }
    for (int32_t s = lo; s <= hi; ++s) {
      for (int32_t i : covering_[s]) {
        if (visited_[i] == visit_) continue;
        visited_[i] = visit_;
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

  const std::vector<ExactItem>& items_;
  const bool blocks_;
  int32_t sections_ = 0;
  std::vector<uint64_t> live_;                  // per section: bytes of all items there
  int64_t sized_items_ = 0;                     // items with a size
  std::vector<int32_t> start_, end_;            // per item: its sections (inclusive); -1: none
  std::vector<std::vector<int32_t>> starting_;  // per section: items that start there
  std::vector<std::vector<int32_t>> orders_[kOrders];  // starting_ in each candidate order
  const std::vector<std::vector<int32_t>>* candidates_ = &orders_[0];
  uint64_t capacity_ = 0;
  std::vector<Frame> stack_;
  MinTree smallest_start_{0, UINT64_MAX};   // per section: smallest remaining item starting
  CountTree starts_left_{0};                // per section: remaining items starting there
  std::vector<uint64_t> remaining_bytes_;   // per section: bytes of remaining items
  std::vector<int32_t> crossing_;           // per section s > 0: remaining items on s - 1 and s
  std::vector<uint8_t> remaining_;          // per item
  std::vector<uint64_t> offsets_;           // per item, valid once placed
  std::vector<uint64_t> lowest_, highest_;  // sections_can_hold's scratch
  std::vector<uint32_t> visited_;           // per item: the last visit_ that saw it
  uint32_t visit_ = 0;
  std::vector<std::vector<int32_t>> covering_;        // per section: the remaining items over it
  std::vector<std::vector<int32_t>> cover_position_;  // per item and section: its place there
  std::vector<uint8_t> covered_;      // chain_cover's answer, per section (and one more)
  std::vector<uint8_t> reached_;      // full_point's scratch, per section (and one more)
  std::vector<int32_t> over_;         // full_point's scratch, per section (and one more)
  bool any_point_ = false;            // branch on any full point (else on the runs' first)
  std::vector<uint64_t> floor_;       // per section: every remaining item lies at or above it
  std::vector<uint64_t> ceiling_;     // per section: every remaining item lies below it
  std::vector<uint64_t> key_;         // per item: a random key
  std::vector<uint64_t> start_keys_;  // per section: xor of keys of remaining items there
  std::unordered_set<StateKey, StateKeyHash> failed_;  // states of nodes that failed
  size_t remaining_count_ = 0;
  bool cut_made_ = false;  // the last placement left a point that no remaining item crosses
};

// Decides the nodes `list` of `tree` within `height` with at most `budget` nodes (added to
// *steps); their offsets go to within[node].
ExactOutcome pack_level(const BlockTree& tree, const std::vector<int32_t>& list, uint64_t height,
                        int64_t budget, std::vector<uint64_t>* within, int64_t* steps) {
  std::vector<ExactItem> level;
  level.reserve(list.size());
  for (int32_t id : list) {
    const BlockNode& n = tree.nodes[id];
    level.push_back(ExactItem{n.size, n.lower, n.upper, n.alignment});
  }
  const ExactDecision d = ExactSearch(level, false).decide(height, budget);
  *steps += d.steps;
  if (d.outcome != ExactOutcome::Fits) return d.outcome;
  for (size_t k = 0; k < list.size(); ++k) (*within)[list[k]] = d.offsets[k];
  return ExactOutcome::Fits;
}

// The buffers (leaves) a node of `tree` holds, appended to *out.
void leaves_of(const BlockTree& tree, int32_t node, std::vector<int32_t>* out) {
  if (tree.nodes[node].item >= 0) {
    out->push_back(node);
    return;
  }
  for (int32_t m : tree.nodes[node].members) leaves_of(tree, m, out);
}

// A plan of `items` within `capacity` from their blocks (block_decomposition.h), searching at
// most `budget` nodes: each block's members packed within its height (the smallest blocks
// first), then the top level. Where a block's members do not pack (or not within a sixteenth
// of what is left: a true block's pack at once), a smaller block inside it may be the wrong
// one, so it is packed with each smaller block in turn taken apart into its buffers, then with
// all of its buffers; where that fails too, the block is refused and the blocks are formed
// again without it, up to kMaxRefusals times. The outcome is Fits or BudgetExhausted: finding
// no plan from the blocks proves nothing about the buffers themselves.
constexpr int kMaxRefusals = 16;

ExactDecision decide_by_blocks(const std::vector<ExactItem>& items, uint64_t capacity,
                               int64_t budget) {
  ExactDecision out;
  std::vector<uint64_t> refused;
  for (int round = 0; round <= kMaxRefusals; ++round) {
    BlockTree tree = find_blocks(items, capacity, refused);
    if (tree.blocks == 0) return out;
    std::vector<uint64_t> within(tree.nodes.size(), 0);  // offset in its block or at the top
    int32_t refuse = -1;
    for (size_t b = 0; b < tree.nodes.size() && refuse < 0; ++b) {
      BlockNode& block = tree.nodes[b];
      if (block.item >= 0) continue;
      // The members as formed; then with one smaller block inside taken apart into its
      // buffers, each in turn; then all of its buffers.
      std::vector<std::vector<int32_t>> tries = {block.members};
      for (int32_t m : block.members) {
        if (tree.nodes[m].item >= 0) continue;
        std::vector<int32_t> apart;
        for (int32_t other : block.members) {
          if (other != m) apart.push_back(other);
        }
        leaves_of(tree, m, &apart);
        tries.push_back(std::move(apart));
      }
      if (tries.size() > 2) {
        tries.emplace_back();
        leaves_of(tree, static_cast<int32_t>(b), &tries.back());
      }
      bool packed = false;
      for (std::vector<int32_t>& members : tries) {
        const int64_t left = budget - out.steps;
        if (left <= 0) return out;
        if (pack_level(tree, members, block.size, std::max<int64_t>(left / 16, 1), &within,
                       &out.steps) == ExactOutcome::Fits) {
          block.members = std::move(members);
          packed = true;
          break;
        }
      }
      if (!packed) refuse = static_cast<int32_t>(b);
    }
    if (refuse >= 0) {
      refused.push_back(tree.nodes[refuse].key);
      continue;
    }
    const int64_t left = budget - out.steps;
    if (left <= 0 ||
        pack_level(tree, tree.top, capacity, left, &within, &out.steps) != ExactOutcome::Fits) {
      return out;
    }
    // Offsets from the top down.
    out.offsets.assign(items.size(), 0);
    std::vector<std::pair<int32_t, uint64_t>> todo;  // (node, offset of what holds it)
    for (int32_t id : tree.top) todo.push_back({id, 0});
    while (!todo.empty()) {
      const auto [id, base] = todo.back();
      todo.pop_back();
      const BlockNode& n = tree.nodes[id];
      if (n.item >= 0) out.offsets[n.item] = base + within[id];
      for (int32_t m : n.members) todo.push_back({m, base + within[id]});
    }
    out.outcome = ExactOutcome::Fits;
    return out;
  }
  return out;
}

}  // namespace

uint64_t exact_live_bytes(const std::vector<ExactItem>& items) {
  std::vector<std::pair<int64_t, int64_t>> events;  // (point, +size or -size), ends first
  for (const ExactItem& it : items) {
    if (it.size == 0) continue;
    events.push_back({it.lower, static_cast<int64_t>(it.size)});
    events.push_back({it.upper, -static_cast<int64_t>(it.size)});
  }
  std::sort(events.begin(), events.end());
  uint64_t live = 0, best = 0;
  for (const auto& [point, delta] : events) {
    live = delta >= 0 ? live + static_cast<uint64_t>(delta) : live - static_cast<uint64_t>(-delta);
    best = std::max(best, live);
  }
  return best;
}

uint64_t exact_height(const std::vector<ExactItem>& items, const std::vector<uint64_t>& offsets) {
  uint64_t height = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].size > 0) height = std::max(height, offsets[i] + items[i].size);
  }
  return height;
}

ExactDecision decide_exact(const std::vector<ExactItem>& items, uint64_t capacity,
                           int64_t budget_steps, ExactBranching branching) {
  return ExactSearch(items).decide(capacity, budget_steps, branching);
}

ExactPlan minimize_exact(const std::vector<ExactItem>& items, std::vector<uint64_t> incumbent,
                         int64_t budget_steps, uint64_t first_probe, uint64_t stop_at) {
  ExactPlan plan;
  if (incumbent.size() != items.size()) {
    incumbent.assign(items.size(), 0);
    uint64_t at = 0;
    for (size_t i = 0; i < items.size(); ++i) {
      if (items[i].size == 0) continue;
      at = round_up(at, items[i].alignment);
      incumbent[i] = at;
      at += items[i].size;
    }
  }
  plan.offsets = std::move(incumbent);
  plan.height = exact_height(items, plan.offsets);
  plan.lower_bound = std::min(exact_live_bytes(items), plan.height);
  if (plan.optimal() || (stop_at > 0 && plan.height <= stop_at) || budget_steps <= 0) return plan;
  ExactSearch search(items);
  int64_t left = budget_steps;
  // Decides at `capacity`; true when the search should go on.
  auto probe = [&](uint64_t capacity, int64_t budget) {
    ExactDecision d = search.decide(capacity, budget);
    plan.steps += d.steps;
    left -= d.steps;
    if (d.outcome == ExactOutcome::Fits) {
      plan.offsets = std::move(d.offsets);
      plan.height = exact_height(items, plan.offsets);
    } else if (d.outcome == ExactOutcome::DoesNotFit) {
      plan.lower_bound = std::max(plan.lower_bound, capacity + 1);
    }
    if (d.outcome == ExactOutcome::BudgetExhausted) return false;
    return !(stop_at > 0 && plan.height <= stop_at);
  };
  uint64_t first = first_probe == 0 ? plan.lower_bound : first_probe;
  first = std::clamp(first, plan.lower_bound, plan.height - 1);
  // The first probe (at the bound, usually the hardest) gets half the budget so that the
  // bisection above it still runs when the bound is out of reach; all of it when it is the
  // question asked (stop_at).
  const bool only_question = stop_at > 0 && first == stop_at;
  if (!probe(first, only_question ? left : std::max<int64_t>(left / 2, 1))) return plan;
  while (plan.lower_bound < plan.height && left > 0) {
    const uint64_t mid = plan.lower_bound + (plan.height - 1 - plan.lower_bound) / 2;
    if (!probe(mid, left)) break;
  }
  return plan;
}

}  // namespace devplan
