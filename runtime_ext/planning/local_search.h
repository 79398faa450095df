// Local search for offset plans: improves a valid placement by re-placing neighbourhoods, a
// large-neighbourhood search over placement orders. Internal to the planning library; the
// `search` and `best` algorithms of plan_offsets use it.
//
// Each iteration picks an item that ends above the lower bound (half the time one at the very
// top of the plan), frees the items whose lifetimes overlap a random window of steps around it,
// and re-places them around the items that stay:
//   - usually lowest-fit in the order of their current offsets with one perturbation (an item
//     moved earlier, two swapped, or a shuffle). In that order without the perturbation no item
//     would rise, so the perturbation is what explores. Kept when the neighbourhood's top does
//     not rise (sideways moves are kept, so the search drifts across plateaus);
//   - sometimes by HoodSolver's bounded exact search over the neighbourhood's 24 highest items,
//     kept only when their top falls.
// Items that live far longer than the window mostly stay put: they rarely can move and placing
// one costs in proportion to its lifetime. The budget is a number of iterations and every
// choice comes from a seeded generator, so the result is deterministic. It stops early at the
// lower bound.
//
//   LocalSearchResult r = improve_placement(engine, offsets, total, lower_bound, 20000, seed);
#pragma once

#include <cstdint>
#include <vector>

#include <runtime_ext/planning/placement_engine.h>

namespace devplan {

struct LocalSearchResult {
  std::vector<uint64_t> offsets;  // one per engine item
  uint64_t total = 0;             // max(offset + size)
};

// `offsets` (one per item of `engine`) is a valid placement with top `total`. Returns a valid
// placement whose top is at most `total`. Leaves `engine` holding some placement.
LocalSearchResult improve_placement(PlacementEngine& engine, std::vector<uint64_t> offsets,
                                    uint64_t total, uint64_t lower_bound, int64_t iterations,
                                    uint64_t seed);

}  // namespace devplan
