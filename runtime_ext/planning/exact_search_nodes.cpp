// The nodes of ExactSearch (exact_search.h): the state a node opens with, the scopes and their
// components, the children a node places and undoes, and the nodes that fail.
#include <runtime_ext/planning/exact_search.h>

#include <algorithm>
#include <climits>
#include <tuple>

namespace devplan::internal {

ExactSearch::StateKey ExactSearch::state_key(int32_t lo, int32_t hi) const {
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

// The ranges of [lo, hi] that no remaining item joins, those with items to place.
std::vector<std::pair<int32_t, int32_t>> ExactSearch::components(int32_t lo, int32_t hi) const {
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
void ExactSearch::open_scope(int32_t lo, int32_t hi, int32_t owner, bool may_split) {
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
void ExactSearch::fail_node() {
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

void ExactSearch::refresh_smallest_start(int32_t section) {
  uint64_t smallest = UINT64_MAX;
  for (int32_t i : starting_[section]) {
    if (remaining_[i]) smallest = std::min(smallest, items_[i].size);
  }
  smallest_start_.set(static_cast<size_t>(section), smallest);
}

void ExactSearch::undo_child(Frame& frame) {
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
bool ExactSearch::next_child(Frame& frame) {
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

// Whether item i, placed at the frame's level, has its far edge (its top on a floor, its
// offset under a ceiling) at the level of a neighbouring section in the scope that still has
// items to place, or at the other side of a section under it (closing it).
bool ExactSearch::ends_flush(const Frame& frame, int32_t i) const {
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

// covering_ holds item i (remaining again) / no longer holds it (placed).
void ExactSearch::cover(int32_t i) {
  for (int32_t s = start_[i]; s <= end_[i]; ++s) {
    cover_position_[i][s - start_[i]] = static_cast<int32_t>(covering_[s].size());
    covering_[s].push_back(i);
  }
}

void ExactSearch::uncover(int32_t i) {
  for (int32_t s = start_[i]; s <= end_[i]; ++s) {
    const int32_t k = cover_position_[i][s - start_[i]];
    const int32_t last = covering_[s].back();
    covering_[s][k] = last;
    cover_position_[last][s - start_[last]] = k;
    covering_[s].pop_back();
  }
}

}  // namespace devplan::internal
