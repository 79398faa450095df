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
// one costs in proportion to its lifetime.
//
// The budget is a number of iterations, never time, and every choice comes from a seeded
// generator, so the result depends only on the input, the seed and the iterations run: the
// same on every run and machine. A search stops early at the lower bound. It can be run in
// slices (LocalSearch::run), which continue where the last one stopped: running 100 then 200
// iterations gives exactly the result of running 300. The planner uses that to advance two
// searches in turns, each on its own engine.
//
//   LocalSearchResult r = improve_placement(engine, offsets, total, lower_bound, 20000, seed);
//
//   LocalSearch search(engine, offsets, total, lower_bound, seed);
//   search.run(100);
//   search.run(200);        // the same as one run(300)
//   search.best().total;
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <runtime_ext/planning/placement_engine.h>

namespace devplan {

struct LocalSearchResult {
  std::vector<uint64_t> offsets;  // one per engine item
  uint64_t total = 0;             // max(offset + size)
};

// One resumable search. Holds `engine` (which must outlive it) from the first run() on: the
// engine then holds the search's current placement, and nothing else may use it.
// Not thread-safe.
class LocalSearch {
 public:
  // `offsets` (one per item of `engine`) is a valid placement with top `total`.
  LocalSearch(PlacementEngine& engine, std::vector<uint64_t> offsets, uint64_t total,
              uint64_t lower_bound, uint64_t seed);
  ~LocalSearch();
  LocalSearch(const LocalSearch&) = delete;
  LocalSearch& operator=(const LocalSearch&) = delete;

  // Runs at most `iterations` more iterations and returns how many ran: fewer only once
  // finished().
  int64_t run(int64_t iterations);

  // True once the best placement is at the lower bound or no item ends above it.
  bool finished() const;

  // The best placement found so far: valid, top at most the starting total.
  const LocalSearchResult& best() const { return best_; }

 private:
  class State;

  PlacementEngine& engine_;
  uint64_t lower_bound_;
  uint64_t seed_;
  LocalSearchResult best_;
  std::unique_ptr<State> state_;  // created by the first run() that has work to do
};

// `offsets` (one per item of `engine`) is a valid placement with top `total`. Returns a valid
// placement whose top is at most `total`: the result of LocalSearch::run(iterations). Leaves
// `engine` holding some placement.
LocalSearchResult improve_placement(PlacementEngine& engine, std::vector<uint64_t> offsets,
                                    uint64_t total, uint64_t lower_bound, int64_t iterations,
                                    uint64_t seed);

}  // namespace devplan
