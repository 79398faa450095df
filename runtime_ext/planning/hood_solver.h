// HoodSolver: re-places a small neighbourhood of items around fixed ones as well as a bounded
// depth-first search can. It enumerates canonical placements (the items in non-decreasing
// offset order, each at the lowest offset that fits among the fixed items and the items placed
// before it), a set that contains an optimal placement, and prunes every branch that cannot end
// below the best top found. Used by the local search; internal to the planning library.
//
//   HoodSolver solver;
//   solver.reset(engine, items);   // engine holds the fixed items, not `items`
//   std::vector<uint64_t> offsets;
//   if (solver.solve(current_top, 500, &offsets)) ...   // a placement with a lower top
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include <runtime_ext/planning/placement_engine.h>

namespace devplan {

class HoodSolver {
 public:
  static constexpr size_t kMaxItems = 24;

  // Prepares a search over `items` (at most kMaxItems, none placed in `engine`) around the
  // items placed in `engine`.
  void reset(PlacementEngine& engine, const std::vector<int32_t>& items);

  // Visits at most `budget` search nodes looking for a placement of the items whose highest
  // end is below `limit`. On success returns true and the best such placement's offsets,
  // parallel to the items given to reset().
  bool solve(uint64_t limit, int64_t budget, std::vector<uint64_t>* offsets);

 private:
  uint64_t lowest(size_t a, uint64_t floor, uint32_t placed) const;
  void dfs(uint32_t placed, uint64_t floor, uint64_t peak);

  size_t m_ = 0;
  std::vector<uint64_t> sizes_;
  std::vector<uint32_t> overlap_;  // bit b of overlap_[a]: items a and b share a step
  std::vector<std::vector<std::pair<uint64_t, uint64_t>>> gaps_;  // free [begin, end) per item
  std::vector<int32_t> fixed_;
  std::vector<std::pair<uint64_t, uint64_t>> occupied_;
  std::vector<uint64_t> off_;
  std::vector<uint64_t> best_off_;
  uint64_t best_ = 0;
  int64_t budget_ = 0;
  bool found_ = false;
};

}  // namespace devplan
