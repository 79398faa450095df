// Exact offset assignment: a complete branch-and-bound search over the offsets of buffers with
// half-open lifetimes, which either proves that they fit within a capacity (and gives the
// offsets) or proves that they do not, within a budget of search steps.
//
// The search keeps, per time section (the steps between two consecutive lifetime ends), a
// floor and a ceiling: every buffer not yet placed lies between them. Buffers are placed on a
// floor or hung from a ceiling. At each node the search takes one run of sections to branch
// on: a local minimum of the floors (its neighbours higher), where one of the buffers that
// start at the run's first section and end within it sits on the floor (rounded up to its
// alignment), or none does and the floor rises to the lowest height the buffer that does sit
// lowest there can have (a neighbour's floor, or the floor plus the smallest buffer that starts
// inside the run); or a local maximum of the ceilings whose first section has no room to
// spare, where such a buffer must hang from the ceiling. A point of such a run in a section
// with no room to spare is never waste either: one of the run's buffers over it sits there
// (hangs there). Of all such choices it takes the one with the fewest children, so forced
// placements go first and dead ends show at once. Every plan
// that fits has a twin the search reaches (let the unplaced buffers fall as far as they can:
// the lowest one in a run sits on its floor or on another), so the search is complete.
// Pruning: a section that cannot hold what remains there between the lowest offset and the
// highest end its buffers can still take; a run that no chain of buffers at its level (and of
// sections with room to spare) covers; a state that failed before; buffers that are
// interchangeable (same size, lifetime and alignment) are tried once. See MiniMalloc (Moffitt,
// ASPLOS 2023) for canonical solutions and spatial inference, and exact-cover search (fewest
// choices first) for the branching rule.
//
// Before searching the buffers, decide_exact (and minimize_exact at each capacity it decides)
// tries their blocks (block_decomposition.h): sets of buffers that tile a rectangle, packed like
// one buffer and then apart, within a quarter of the budget (when that quarter has a node for
// every buffer: each placement is one). A rectangle cut into rectangles comes apart into pieces
// of a few buffers each, so a tiling of hundreds of buffers is packed in a few hundred nodes; a
// plan from the blocks is a plan, and where none comes of them the search of the buffers
// themselves answers, with what is left of the budget.
//
// The budget counts search nodes, never time: the same items and budget give the same answer
// on every machine.
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
