// CanonicalSearch (exact_canonical_search.h): a sweep over offsets. Each child places one
// unplaced buffer at its lowest offset (on the highest placed buffer it overlaps), never before
// the last placement in (offset, rank) order, so every plan is reached once, in the order its
// buffers would fall into place. Why each rule keeps the search complete: docs/planners.md.
#include <runtime_ext/planning/exact_canonical_search.h>

#include <algorithm>
#include <tuple>

#include <runtime_ext/planning/exact_engine_support.h>

namespace devplan::internal {

CanonicalSearch::CanonicalSearch(const std::vector<ExactItem>& items) : items_(items) {
  std::vector<int64_t> ends;
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].size == 0) continue;
    sized_.push_back(static_cast<int32_t>(i));
    ends.push_back(items[i].upper);
  }
  std::sort(ends.begin(), ends.end());
  ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
  sections_ = static_cast<int32_t>(ends.size());
  first_.assign(items.size(), -1);
  last_.assign(items.size(), -1);
  width_.assign(items.size(), 0);
  members_.resize(ends.size());
  starting_.resize(ends.size());
  live_.assign(ends.size(), 0);
  initial_cuts_.assign(ends.size(), 0);
  // A cross-section is what is live just before an end point: every set of buffers live
  // together lies in one, so they are the only places room can run out.
  for (int32_t i : sized_) {
    const ExactItem& it = items[i];
    first_[i] =
        static_cast<int32_t>(std::upper_bound(ends.begin(), ends.end(), it.lower) - ends.begin());
    last_[i] =
        static_cast<int32_t>(std::lower_bound(ends.begin(), ends.end(), it.upper) - ends.begin());
    width_[i] = static_cast<uint64_t>(it.upper - it.lower);
    starting_[first_[i]].push_back(i);
    for (int32_t s = first_[i]; s <= last_[i]; ++s) {
      members_[s].push_back(i);
      live_[s] += it.size;
    }
    for (int32_t s = first_[i]; s < last_[i]; ++s) ++initial_cuts_[s];
  }
  // Buffers of one kind (lifetime, size, alignment) can trade places: they are placed in
  // index order only.
  std::vector<int32_t> kinds = sized_;
  auto kind = [&](int32_t i) {
    return std::make_tuple(items[i].lower, items[i].upper, items[i].size, items[i].alignment);
  };
  std::sort(kinds.begin(), kinds.end(), [&](int32_t x, int32_t y) {
    return std::make_pair(kind(x), x) < std::make_pair(kind(y), y);
  });
  twin_before_.assign(items.size(), -1);
  for (size_t k = 1; k < kinds.size(); ++k) {
    if (kind(kinds[k]) == kind(kinds[k - 1])) twin_before_[kinds[k]] = kinds[k - 1];
  }
  seen_.assign(items.size(), 0);
  placed_.assign(items.size(), 0);
  offset_.assign(items.size(), 0);
  rank_.assign(items.size(), 0);
}

ExactDecision CanonicalSearch::decide(uint64_t capacity, int64_t budget, CanonicalOrder order,
                                      int64_t work_limit, const ExactDeadline& deadline,
                                      bool resume) {
  ExactDecision out;
  work_ = 0;
  auto fits = [&]() -> ExactDecision& {
    out.outcome = ExactOutcome::Fits;
    out.offsets.assign(items_.size(), 0);
    for (int32_t i : sized_) out.offsets[i] = offset_[i];
    return out;
  };
  // A decision that stopped on its budget left every node's next candidate as it was.
  const bool resumed = resume && suspended_ && capacity == capacity_ && order == order_;
  suspended_ = false;
  if (!resumed) {
    capacity_ = capacity;
    order_ = order;
    stack_.clear();
    if (!reset()) {
      out.outcome = ExactOutcome::DoesNotFit;
      return out;
    }
    if (unplaced_ == 0) return fits();
    rank_scope(0, sections_ - 1, nullptr);
    open_scope(0, sections_ - 1, -1, true, 0, -1);
  }
  while (!stack_.empty()) {
    if (stack_.back().is_split) {  // backtracked onto: one of its components failed
      pop_split();
      continue;
    }
    Frame& frame = stack_.back();
    undo_child(frame);
    bool applied = false;
    while (!frame.done && frame.cursor < frame.order.size()) {
      if (out.steps >= budget || work_ >= work_limit ||
          ((out.steps & 1023) == 0 && deadline_passed(deadline))) {
        out.outcome = ExactOutcome::BudgetExhausted;
        out.timed_out = out.steps < budget && work_ < work_limit;
        suspended_ = true;
        return out;
      }
      ++out.steps;
      if (place(frame, frame.order[frame.cursor++])) {
        applied = true;
        break;
      }
      undo_child(frame);
    }
    if (!applied) {
      fail_node();
      continue;
    }
    if (unplaced_ == 0) return fits();
    const int32_t i = frame.placed;
    open_scope(frame.lo, frame.hi, frame.owner, cut_made_, offset_[i], rank_[i]);
  }
  out.outcome = ExactOutcome::DoesNotFit;
  return out;
}

bool CanonicalSearch::reset() {
  left_ = live_;
  most_left_ = MaxTree(static_cast<size_t>(sections_));
  floor_.assign(static_cast<size_t>(sections_), kNone);
  for (int32_t s = 0; s < sections_; ++s) {
    if (left_[s] > capacity_) return false;
    most_left_.set(static_cast<size_t>(s), left_[s]);
    if (!members_[s].empty()) floor_[s] = 0;
  }
  cuts_ = initial_cuts_;
  offset_trail_.clear();
  floor_trail_.clear();
  for (int32_t i : sized_) {
    placed_[i] = 0;
    offset_[i] = 0;
  }
  unplaced_ = sized_.size();
  return true;
}

// Ranks the unplaced buffers of [lo, hi] in the preorder, keeping their old ranks in `saved`.
// Ties end on the buffers' own values, never on their place in the input.
void CanonicalSearch::rank_scope(int32_t lo, int32_t hi,
                                 std::vector<std::pair<int32_t, int32_t>>* saved) {
  struct Keyed {
    int32_t item;
    uint64_t key[3];
  };
  std::vector<Keyed> list;
  for (int32_t s = lo; s <= hi; ++s) {
    for (int32_t i : starting_[s]) {
      if (placed_[i]) continue;
      uint64_t total = 0;
      for (int32_t t = first_[i]; t <= last_[i]; ++t) total = std::max(total, left_[t]);
      const uint64_t w = width_[i];
      // The area saturates: at 2^64 and beyond, ties fall to the other keys.
      const unsigned __int128 area = static_cast<unsigned __int128>(items_[i].size) * w;
      const uint64_t a = area > UINT64_MAX ? UINT64_MAX : static_cast<uint64_t>(area);
      Keyed k{i, {}};
      switch (order_) {
        case CanonicalOrder::WidthAreaTotal:
          k.key[0] = w, k.key[1] = a, k.key[2] = total;
          break;
        case CanonicalOrder::TotalAreaWidth:
          k.key[0] = total, k.key[1] = a, k.key[2] = w;
          break;
        case CanonicalOrder::TotalWidthArea:
          k.key[0] = total, k.key[1] = w, k.key[2] = a;
          break;
      }
      list.push_back(k);
    }
  }
  std::sort(list.begin(), list.end(), [&](const Keyed& x, const Keyed& y) {
    for (int k = 0; k < 3; ++k) {
      if (x.key[k] != y.key[k]) return x.key[k] > y.key[k];
    }
    const ExactItem &a = items_[x.item], &b = items_[y.item];
    if (a.lower != b.lower) return a.lower < b.lower;
    if (a.upper != b.upper) return a.upper < b.upper;
    if (a.size != b.size) return a.size > b.size;
    if (a.alignment != b.alignment) return a.alignment > b.alignment;
    return x.item < y.item;  // only buffers of one kind get here
  });
  for (size_t r = 0; r < list.size(); ++r) {
    if (saved) saved->push_back({list[r].item, rank_[list[r].item]});
    rank_[list[r].item] = static_cast<int32_t>(r);
  }
}

// The ranges of [lo, hi] that no unplaced buffer joins, those with buffers to place.
std::vector<std::pair<int32_t, int32_t>> CanonicalSearch::components(int32_t lo, int32_t hi) const {
  std::vector<std::pair<int32_t, int32_t>> out;
  for (int32_t s = lo; s <= hi;) {
    int32_t e = s;
    while (e + 1 <= hi && cuts_[e] > 0) ++e;
    if (left_[s] > 0) out.push_back({s, e});
    s = e + 1;
  }
  return out;
}

bool CanonicalSearch::scope_left(int32_t lo, int32_t hi) const {
  return most_left_.max(static_cast<size_t>(lo), static_cast<size_t>(hi)) > 0;
}

// Pushes the next node for the scope [lo, hi] of `owner`, as ExactSearch::open_scope does; a
// component solves from offset 0 in a preorder of its own.
void CanonicalSearch::open_scope(int32_t lo, int32_t hi, int32_t owner, bool may_split,
                                 uint64_t bound_offset, int32_t bound_rank) {
  bool first = false;
  if (may_split) {
    std::vector<std::pair<int32_t, int32_t>> parts = components(lo, hi);
    if (parts.size() >= 2) {
      Frame split;
      split.is_split = true;
      split.lo = lo, split.hi = hi, split.owner = owner;
      for (const auto& [l, h] : parts) rank_scope(l, h, &split.saved_ranks);
      split.components = std::move(parts);
      stack_.push_back(std::move(split));
      owner = static_cast<int32_t>(stack_.size()) - 1;
      std::tie(lo, hi) = stack_.back().components[0];
      first = true;
      bound_offset = 0, bound_rank = -1;
    } else if (parts.size() == 1) {
      std::tie(lo, hi) = parts[0];
    }
  }
  while (!scope_left(lo, hi)) {
    Frame& split = stack_[owner];  // the root scope holds every unplaced buffer
    if (++split.current < split.components.size()) {
      std::tie(lo, hi) = split.components[split.current];
      first = true;
      bound_offset = 0, bound_rank = -1;
      break;
    }
    lo = split.lo, hi = split.hi, owner = split.owner;
    first = false;
  }
  Frame f;
  f.lo = lo, f.hi = hi, f.owner = owner, f.first = first;
  f.bound_offset = bound_offset;
  f.bound_rank = bound_rank;
  fill_order(f);
  stack_.push_back(std::move(f));
}

// The candidates of a node, lowest (offset, rank) first: not before the last placement, and
// below every unplaced buffer's top (a buffer placed at or above one of those tops would leave
// room under it that the buffer could drop into: the plan is not canonical).
void CanonicalSearch::fill_order(Frame& frame) {
  uint64_t lowest_top = kNone;
  for (int32_t s = frame.lo; s <= frame.hi; ++s) {
    work_ += 2 * static_cast<int64_t>(starting_[s].size());
    for (int32_t i : starting_[s]) {
      if (!placed_[i]) lowest_top = std::min(lowest_top, offset_[i] + items_[i].size);
    }
  }
  for (int32_t s = frame.lo; s <= frame.hi; ++s) {
    for (int32_t i : starting_[s]) {
      if (placed_[i] || offset_[i] >= lowest_top) continue;
      if (offset_[i] < frame.bound_offset ||
          (offset_[i] == frame.bound_offset && rank_[i] < frame.bound_rank)) {
        continue;
      }
      if (offset_[i] + items_[i].size > capacity_) continue;
      if (twin_before_[i] >= 0 && !placed_[twin_before_[i]]) continue;
      frame.order.push_back(i);
    }
  }
  std::sort(frame.order.begin(), frame.order.end(), [&](int32_t x, int32_t y) {
    return offset_[x] != offset_[y] ? offset_[x] < offset_[y] : rank_[x] < rank_[y];
  });
}

// Places buffer i at its lowest offset; false when some cross-section of the scope can no
// longer hold what is left there (the caller undoes the child either way).
bool CanonicalSearch::place(Frame& frame, int32_t i) {
  frame.placed = i;
  frame.mo_mark = offset_trail_.size();
  frame.floor_mark = floor_trail_.size();
  const uint64_t at = offset_[i], size = items_[i].size, top = at + size;
  placed_[i] = 1;
  --unplaced_;
  bool hatless = true;
  for (int32_t s = first_[i]; s <= last_[i]; ++s) {
    left_[s] -= size;
    most_left_.set(static_cast<size_t>(s), left_[s]);
    hatless = hatless && left_[s] == 0;
  }
  frame.hatless = hatless;
  cut_made_ = false;
  for (int32_t s = first_[i]; s < last_[i]; ++s) cut_made_ |= --cuts_[s] == 0;
  // Every unplaced buffer it overlaps now starts at its top or higher.
  ++visit_;
  int32_t lo = first_[i], hi = last_[i];
  for (int32_t s = first_[i]; s <= last_[i]; ++s) {
    work_ += static_cast<int64_t>(members_[s].size());
    for (int32_t u : members_[s]) {
      if (placed_[u] || seen_[u] == visit_) continue;
      seen_[u] = visit_;
      const uint64_t lowest = round_up(top, items_[u].alignment);
      if (lowest <= offset_[u]) continue;
      offset_trail_.push_back({u, offset_[u]});
      offset_[u] = lowest;
      lo = std::min(lo, first_[u]);
      hi = std::max(hi, last_[u]);
    }
  }
  // Cross-sections where a lowest offset rose: nothing left there goes below the lowest of its
  // buffers, nor below this placement (later ones are no lower); what is left must fit above.
  for (int32_t s = lo; s <= hi; ++s) {
    uint64_t floor = kNone;
    work_ += static_cast<int64_t>(members_[s].size());
    for (int32_t u : members_[s]) {
      if (!placed_[u]) floor = std::min(floor, offset_[u]);
    }
    if (floor != floor_[s]) {
      floor_trail_.push_back({s, floor_[s]});
      floor_[s] = floor;
    }
    if (left_[s] > 0 && std::max(floor, at) + left_[s] > capacity_) return false;
  }
  return at + most_left_.max(static_cast<size_t>(frame.lo), static_cast<size_t>(frame.hi)) <=
         capacity_;
}

void CanonicalSearch::undo_child(Frame& frame) {
  if (frame.placed < 0) return;
  const int32_t i = frame.placed;
  const uint64_t size = items_[i].size;
  while (offset_trail_.size() > frame.mo_mark) {
    offset_[offset_trail_.back().first] = offset_trail_.back().second;
    offset_trail_.pop_back();
  }
  while (floor_trail_.size() > frame.floor_mark) {
    floor_[floor_trail_.back().first] = floor_trail_.back().second;
    floor_trail_.pop_back();
  }
  for (int32_t s = first_[i]; s <= last_[i]; ++s) {
    left_[s] += size;
    most_left_.set(static_cast<size_t>(s), left_[s]);
  }
  for (int32_t s = first_[i]; s < last_[i]; ++s) ++cuts_[s];
  placed_[i] = 0;
  ++unplaced_;
  frame.placed = -1;
  // A buffer no unplaced one overlaps keeps its offset whatever comes after it; placed later
  // it would come before the bound: no other child can succeed where it failed.
  if (frame.hatless) frame.done = true;
}

void CanonicalSearch::pop_split() {
  for (auto it = stack_.back().saved_ranks.rbegin(); it != stack_.back().saved_ranks.rend(); ++it) {
    rank_[it->first] = it->second;
  }
  stack_.pop_back();
}

// The node on top has no child left: pop it; when it was the first of a component, the
// component failed and with it the split, whatever its earlier components hold.
void CanonicalSearch::fail_node() {
  const int32_t owner = stack_.back().owner;
  const bool first = stack_.back().first;
  stack_.pop_back();
  if (!first || owner < 0) return;
  while (static_cast<int32_t>(stack_.size()) > owner + 1) {
    if (stack_.back().is_split) {
      pop_split();
    } else {
      undo_child(stack_.back());
      stack_.pop_back();
    }
  }
  pop_split();  // the split; its parent node tries its next child
}

}  // namespace devplan::internal
