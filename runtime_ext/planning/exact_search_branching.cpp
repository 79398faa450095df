// Where a node of ExactSearch (exact_search.h) branches: the runs of floors and of ceilings in
// its scope, the chains of items that can cover them, their full points and the raise of a
// floor; the run with the fewest children is taken.
#include <runtime_ext/planning/exact_search.h>

#include <algorithm>
#include <climits>
#include <cstdint>

namespace devplan::internal {

// The run [a, run_end] at `floor` when nothing sits at the floor in section a: the lowest
// item there sits at least as high as a neighbouring floor in the scope (it starts earlier or
// ends later than the run; a neighbour with nothing left to place has no such item) or on an
// item that starts inside the run. kNoRaise when what remains in a no longer fits above it.
uint64_t ExactSearch::raise_height(int32_t a, int32_t run_end, uint64_t floor, int32_t lo,
                                   int32_t hi) const {
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

// For the run [l, r] at `level` (a local minimum of the floors, or with `top` a local maximum
// of the ceilings): covered_[t] for t in [l, r + 1], whether sections t..r can be covered at
// the level. Every point of the run at the level lies in an item that sits on it (hangs from
// it), or is waste, which a section can only take when it has slack: so the run is a chain of
// items at the level, each starting where the one before ends, and of single sections left
// empty where there is slack. A run with no such chain is a dead end; an item after which the
// chain cannot go on is no child.
void ExactSearch::chain_cover(int32_t l, int32_t r, bool top, uint64_t level) {
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
size_t ExactSearch::children(int32_t l, int32_t r, bool top, uint64_t level, int32_t lo, int32_t hi,
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
bool ExactSearch::full_point(int32_t l, int32_t r, bool top, uint64_t level, Branch* best,
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
ExactSearch::Branch ExactSearch::choose_branch(int32_t lo, int32_t hi) {
  Branch best;
  size_t best_children = SIZE_MAX;
  work_ += 2 * (hi - lo + 1);
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

}  // namespace devplan::internal
