// Exact offset assignment: a complete branch-and-bound search over the offsets of buffers with
// half-open lifetimes, which either proves that they fit within a capacity (and gives the
// offsets) or proves that they do not, within a budget of search nodes (never time). How it
// branches, prunes and uses blocks: docs/planners.md.
//
//   std::vector<ExactItem> items = {{4, 0, 3, 1}, {4, 3, 9, 1}, {8, 0, 9, 1}};
//   ExactDecision d = decide_exact(items, 12, 1000000);   // d.outcome == Fits
//   ExactPlan p = minimize_exact(items, {}, 1000000);     // p.height == 12, p.optimal()
#pragma once

#include <cstdint>
#include <vector>

namespace devplan {

// One buffer: `size` bytes, live over [lower, upper), at an offset that is a multiple of
// `alignment` (>= 1). Size-0 buffers take no room and get offset 0.
struct ExactItem {
  uint64_t size = 0;
  int64_t lower = 0;
  int64_t upper = 0;
  uint64_t alignment = 1;
};

enum class ExactOutcome : uint8_t {
  Fits,             // offsets hold a plan within the capacity
  DoesNotFit,       // proven: no plan fits
  BudgetExhausted,  // neither proven within the budget
};

struct ExactDecision {
  ExactOutcome outcome = ExactOutcome::BudgetExhausted;
  std::vector<uint64_t> offsets;  // one per item when outcome == Fits
  int64_t steps = 0;              // search nodes used
};

struct ExactPlan {
  std::vector<uint64_t> offsets;  // one per item
  uint64_t height = 0;            // max(offset + size); 0 without items
  uint64_t lower_bound = 0;       // proven: no plan is lower than this
  int64_t steps = 0;              // search nodes used, all decisions together
  bool optimal() const { return height == lower_bound; }
};

// The preconditions of both functions: lower < upper for items with a size; alignments >= 1;
// the sum of (size + alignment - 1) over the items at most 2^62.

// How the search branches. Both ways are complete; each solves instances the other does not.
enum class ExactBranching : uint8_t {
  Restarts,      // restart after restart, taking turns with orders and both ways (the default)
  RunStarts,     // one search, at the runs' first sections (and forced or dead full points)
  AnyFullPoint,  // one search, at any point without slack of a run, fewest children first
};

// Whether `items` fit within `capacity` bytes, searching at most `budget_steps` nodes.
ExactDecision decide_exact(const std::vector<ExactItem>& items, uint64_t capacity,
                           int64_t budget_steps,
                           ExactBranching branching = ExactBranching::Restarts);

// The lowest plan of `items` the search finds within `budget_steps` nodes, starting from
// `incumbent` (a valid plan's offsets, one per item; empty: the buffers stacked one on another).
// It first decides at `first_probe` (0: the live-bytes lower bound), then bisects between the
// proven bound and the best height found. With `stop_at` > 0 it stops as soon as a plan of at
// most `stop_at` bytes is in hand.
ExactPlan minimize_exact(const std::vector<ExactItem>& items, std::vector<uint64_t> incumbent,
                         int64_t budget_steps, uint64_t first_probe = 0, uint64_t stop_at = 0);

// The largest total of sizes live at one point: no plan is lower.
uint64_t exact_live_bytes(const std::vector<ExactItem>& items);

// max(offset + size) of `offsets` (0 without items).
uint64_t exact_height(const std::vector<ExactItem>& items, const std::vector<uint64_t>& offsets);

}  // namespace devplan
