// The search over one set of items (exact_search.h): its sections, the items that start in
// each, in every candidate order, and the run of a decision: the restarts (decide) and the loop
// over the nodes of one search (search).
#include <runtime_ext/planning/exact_search.h>

#include <algorithm>
#include <climits>

#include <runtime_ext/planning/exact_canonical_search.h>
#include <runtime_ext/planning/split_mix64.h>

namespace devplan::internal {

ExactSearch::ExactSearch(const std::vector<ExactItem>& items, bool blocks)
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

ExactSearch::~ExactSearch() = default;

// Restarts: each strategy in turn gets kFirstRun steps, twice as many every round, until
// one run decides or the budget is spent. A strategy is a candidate order with one of two
// ways to branch (see choose_branch): the first round tries the three structured orders
// branching at the runs' first sections; every later round adds a random order, up to
// kOrders, and tries its orders both ways (a small budget, like best's, stays with the
// first way and the structured orders; a large one spreads over more). Failed states stay
// known across runs (they fail whichever way the search branches), so a restart does not
// search again what an earlier run refuted. A search's time grows steeply on the few
// instances where its first choices go wrong; restarting another way bounds that tail.
//
// In a portfolio, every round starts with CanonicalSearch in its three preorders (the first
// round after its first strategy): in the first round each gets the round's run of steps; later
// they together get as much work as the round's own strategies (work: the section entries each
// engine reads, see work_): the two engines fail on different instances, and neither one's tail
// then costs more than about twice the other's.
//
// A decision left open by its budget can go on (`resume`) at the same capacity: from the
// strategy it stopped in, with the failed states it knew.
ExactDecision ExactSearch::decide(uint64_t capacity, int64_t budget, ExactBranching branching,
                                  const ExactDeadline& deadline, bool resume) {
  ExactDecision out;
  deadline_ = deadline;
  if (branching != ExactBranching::Restarts && branching != ExactBranching::Portfolio) {
    capacity_ = capacity;
    failed_.clear();
    schedule_ = Schedule{};
    candidates_ = &orders_[0];
    any_point_ = branching == ExactBranching::AnyFullPoint;
    return search(budget);
  }
  const bool resumed = resume && schedule_.open && schedule_.capacity == capacity &&
                       schedule_.branching == branching;
  if (!resumed) {
    capacity_ = capacity;
    failed_.clear();
    schedule_ = Schedule{};
    schedule_.capacity = capacity;
    schedule_.branching = branching;
    // Every buffer placed is a node, so with fewer nodes than buffers no plan comes of blocks.
    const int64_t block_budget = std::min(budget / kBlockShare, kMostBlockSteps);
    if (blocks_ && block_budget >= sized_items_ && sized_items_ > 0 &&
        full_sections_meet(capacity)) {
      // A plan from the blocks answers at once where blocks tile the instance; where none
      // comes of them, the search below starts on what is left of the budget.
      ExactDecision d = decide_by_blocks(items_, capacity, block_budget, branching, deadline);
      if (d.outcome == ExactOutcome::Fits || d.timed_out) return d;
      out.steps = d.steps;
    }
  }
  capacity_ = capacity;
  schedule_.open = false;
  Schedule& at = schedule_;
  for (;; at.run *= 2, at.orders = std::min(at.orders + 1, kOrders), at.next = 0) {
    // The first round branches at the runs' first sections only; later rounds then try each
    // order again branching at any full point.
    const int ways = at.run == kFirstRun ? 1 : 2;
    const bool first_round = at.run == kFirstRun;
    const int canonical = branching == ExactBranching::Portfolio ? 3 : 0;
    for (; at.next < canonical + ways * at.orders; ++at.next) {
      const int64_t left = budget - out.steps;
      // The first run always starts: what needs no search (nothing to place, a section
      // over the capacity) is answered whatever the budget.
      if (left <= 0 && !(first_round && at.next == 0 && !resumed)) {
        out.outcome = ExactOutcome::BudgetExhausted;
        at.open = true;  // a later decision at this capacity may go on from here
        return out;
      }
      ExactDecision d;
      bool share_used = false;  // the strategy had all its steps (or work) this round
      // The canonical strategies come first in a round, after the first strategy of the first
      // round (which decides most instances at once).
      const int first_canonical = first_round ? 1 : 0;
      const bool is_canonical = at.next >= first_canonical && at.next < first_canonical + canonical;
      if (is_canonical) {
        static constexpr CanonicalOrder kCanonicalOrders[] = {CanonicalOrder::TotalWidthArea,
                                                              CanonicalOrder::TotalAreaWidth,
                                                              CanonicalOrder::WidthAreaTotal};
        if (!canonical_) canonical_ = std::make_unique<CanonicalSearch>(items_);
        // The first round's run of steps; later, as much work as this round's own strategies
        // are about to do (twice the last round's), shared by the three preorders.
        const int64_t share = std::max<int64_t>(at.last_round_work * 2 / 3, 1);
        const int64_t steps = first_round ? std::min(left, at.run - at.used) : left;
        const int64_t work = first_round ? INT64_MAX : share - at.used_work;
        d = canonical_->decide(capacity, steps, kCanonicalOrders[at.next - first_canonical], work,
                               deadline, at.started);
        at.used += d.steps;
        at.used_work += canonical_->work();
        share_used = first_round ? at.used >= at.run : at.used_work >= share;
      } else {
        const int strategy = at.next < first_canonical ? at.next : at.next - canonical;
        if (strategy == 0 && !at.started) at.round_work = 0;
        candidates_ = &orders_[strategy % at.orders];
        any_point_ = strategy >= at.orders;
        work_ = 0;
        d = search(std::max<int64_t>(std::min(left, at.run - at.used), 0), at.started);
        at.round_work += work_;
        at.used += d.steps;
        share_used = at.used >= at.run;
        if (share_used && strategy + 1 == ways * at.orders) at.last_round_work = at.round_work;
      }
      out.steps += d.steps;
      if (d.outcome != ExactOutcome::BudgetExhausted || d.timed_out) {
        d.steps = out.steps;
        return d;
      }
      if (!share_used) {  // the budget ran out within the strategy: it goes on next time
        at.started = true;
        at.open = true;
        out.outcome = ExactOutcome::BudgetExhausted;
        return out;
      }
      at.started = false;
      at.used = 0;
      at.used_work = 0;
    }
  }
}

// Whether two neighbouring sections are full at `capacity` (blocks form only there).
bool ExactSearch::full_sections_meet(uint64_t capacity) const {
  for (int32_t s = 1; s < sections_; ++s) {
    if (live_[s - 1] == capacity && live_[s] == capacity) return true;
  }
  return false;
}

// One run of the search; `resume`: the run that stopped on its budget goes on (its stack and
// state are as it left them, a child applied but not yet counted).
ExactDecision ExactSearch::search(int64_t budget, bool resume) {
  ExactDecision out;
  if (resume) return run_nodes(budget, true, out);
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
  return run_nodes(budget, false, out);
}

ExactDecision ExactSearch::run_nodes(int64_t budget, bool child_pending, ExactDecision& out) {
  while (!stack_.empty()) {
    if (!child_pending) {
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
      if ((out.steps & 1023) == 1 && deadline_passed(deadline_)) {
        out.outcome = ExactOutcome::BudgetExhausted;
        out.timed_out = true;
        return out;
      }
    }
    child_pending = false;
    ++out.steps;
    Frame& parent = stack_.back();
    // Only sections under items that overlap what the child changed can have lost room.
    const auto [lo, hi] = parent.placed >= 0 ? affected(start_[parent.placed], end_[parent.placed])
                                             : affected(parent.section, parent.section);
    if (!sections_can_hold(lo, hi)) continue;  // undone on the next turn
    const bool cut = parent.placed >= 0 && cut_made_;
    open_scope(parent.lo, parent.hi, parent.owner, cut);
  }
  out.outcome = ExactOutcome::DoesNotFit;
  return out;
}

bool ExactSearch::reset() {
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

ExactDecision& ExactSearch::fits(ExactDecision* out) {
  out->outcome = ExactOutcome::Fits;
  out->offsets = offsets_;
  return *out;
}

}  // namespace devplan::internal
