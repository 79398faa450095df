// Exact offset assignment: a complete branch-and-bound search over the offsets of buffers with
// half-open lifetimes, which either proves that they fit within a capacity (and gives the
// offsets) or proves that they do not, within a budget of search nodes (never time). How it
// branches, prunes and uses blocks: docs/planners.md.
//
//   std::vector<ExactItem> items = {{4, 0, 3, 1}, {4, 3, 9, 1}, {8, 0, 9, 1}};
//   ExactDecision d = decide_exact(items, 12, 1000000);   // d.outcome == Fits
//   ExactPlan p = minimize_exact(items, {}, 1000000);     // p.height == 12, p.optimal()
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
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
  bool timed_out = false;         // BudgetExhausted by the deadline, not the steps
};

// A wall-clock limit on a search, beside its budget of steps; none by default (then the result
// depends only on the items and the budget).
using ExactDeadline = std::optional<std::chrono::steady_clock::time_point>;

struct ExactPlan {
  std::vector<uint64_t> offsets;  // one per item
  uint64_t height = 0;            // max(offset + size); 0 without items
  uint64_t lower_bound = 0;       // proven: no plan is lower than this
  int64_t steps = 0;              // search nodes used, all decisions together
  bool timed_out = false;         // the deadline ended the search
  bool optimal() const { return height == lower_bound; }
};

// The preconditions of both functions: lower < upper for items with a size; alignments >= 1;
// the sum of (size + alignment - 1) over the items at most 2^62.

// How the search branches. Both ways are complete; each solves instances the other does not.
enum class ExactBranching : uint8_t {
  Restarts,      // restart after restart, taking turns with orders and both ways (the default)
  Portfolio,     // the restarts, each round after the first taking turns with a second engine
                 // that sweeps offsets upward (canonical plans; docs/planners.md)
  RunStarts,     // one search, at the runs' first sections (and forced or dead full points)
  AnyFullPoint,  // one search, at any point without slack of a run, fewest children first
};

// Whether `items` fit within `capacity` bytes, searching at most `budget_steps` nodes.
ExactDecision decide_exact(const std::vector<ExactItem>& items, uint64_t capacity,
                           int64_t budget_steps,
                           ExactBranching branching = ExactBranching::Restarts,
                           const ExactDeadline& deadline = {});

// A budget of steps without a limit: the search ends when it decides, or at its deadline.
constexpr int64_t kUnlimitedSteps = INT64_MAX;

// The lowest plan of `items` the search finds within `budget_steps` nodes before `deadline`,
// starting from `incumbent` (a valid plan's offsets, one per item; empty: the buffers stacked
// one on another). It first decides at `first_probe` (0: the live-bytes lower bound), then
// bisects between the proven bound and the best height found. With `stop_at` > 0 it stops as
// soon as a plan of at most `stop_at` bytes is in hand; when `stop_at` is also the first probe,
// that one decision gets the whole budget. With kUnlimitedSteps (and no such question) it probes
// in passes, each bisecting from the bound with twice the last pass's steps per probe, so that
// the height keeps falling until the deadline.
ExactPlan minimize_exact(const std::vector<ExactItem>& items, std::vector<uint64_t> incumbent,
                         int64_t budget_steps, uint64_t first_probe = 0, uint64_t stop_at = 0,
                         const ExactDeadline& deadline = {},
                         ExactBranching branching = ExactBranching::Restarts);

// The largest total of sizes live at one point: no plan is lower.
uint64_t exact_live_bytes(const std::vector<ExactItem>& items);

// max(offset + size) of `offsets` (0 without items).
uint64_t exact_height(const std::vector<ExactItem>& items, const std::vector<uint64_t>& offsets);

}  // namespace devplan
