// Offset planning: given tensors of one device partition as (size, lifetime) items, assigns each
// a byte offset in one buffer so that items whose lifetimes overlap never share a byte, and
// tries to keep the buffer small. The algorithms (naive, greedy, greedy_breadth, search, exact,
// best) and their guarantees: docs/planners.md.
//
//   std::vector<PlanItem> items = {{16, 0, 2}, {16, 1, 2}, {16, 2, 3}};
//   Result<OffsetPlan> plan = plan_offsets(items, PlannerAlgorithm::Best, {});
//   plan->size;        // 48
//   plan->offsets[1];  // where item 1 lives
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <runtime_ext/core/alignment.h>
#include <runtime_ext/core/result.h>

namespace devplan {

enum class PlannerAlgorithm : uint8_t { Naive, Greedy, GreedyBreadth, Search, Exact, Best };

// "naive", "greedy", "greedy_breadth", "search", "exact", "best".
const char* planner_algorithm_name(PlannerAlgorithm algorithm);

// Parses a name produced by planner_algorithm_name; InvalidArgument listing the names otherwise.
Result<PlannerAlgorithm> parse_planner_algorithm(const std::string& name);

// Every algorithm, in the order `best` tries them.
std::vector<PlannerAlgorithm> all_planner_algorithms();

constexpr uint64_t kDefaultPlannerSeed = 0x9e3779b97f4a7c15ull;

// One tensor to place: its size in bytes (rounded up to the alignment by the planner) and its
// lifetime, steps first..last inclusive. first < 0 means "not planned": offset 0, takes no room.
struct PlanItem {
  uint64_t size = 0;
  int32_t first = 0;
  int32_t last = 0;
};

struct OffsetPlannerOptions {
  uint64_t alignment = kDefaultAlignment;  // a power of two
  uint64_t seed = kDefaultPlannerSeed;
  // search/best: the local-search budget, in iterations (deterministic, see above); negative
  // picks default_search_iterations(items).
  int64_t search_iterations = -1;
  // exact/best: the exact search's budget, in search nodes (deterministic); negative picks
  // default_exact_steps(algorithm).
  int64_t budget_steps = -1;
};

struct OffsetPlan {
  std::vector<uint64_t> offsets;  // one per item, multiples of the alignment
  uint64_t size = 0;              // max(offset + aligned size); 0 without items
  PlannerAlgorithm algorithm = PlannerAlgorithm::Naive;  // the algorithm that produced it
  // Proven: no plan of these items is smaller. The live-bytes lower bound, or what the exact
  // search proved above it (exact, best).
  uint64_t lower_bound = 0;
  int64_t exact_steps = 0;  // search nodes the exact search used
  bool optimal() const { return size == lower_bound; }
};

// The exact search's default budget: 1,000,000 nodes for `exact`, 20,000 inside `best` (a
// node costs microseconds on small partitions, more on large ones).
int64_t default_exact_steps(PlannerAlgorithm algorithm);

// The local-search budget for `num_items` items: 20 iterations per item, at least 5,000 and at
// most 100,000 (an iteration's cost depends on the neighbourhood, not on the item count, so a
// 100,000-item partition stays at a few seconds). 0 for fewer than two items.
int64_t default_search_iterations(size_t num_items);

// The largest total of aligned item sizes live at one step: no valid plan is smaller.
// Saturates at UINT64_MAX.
uint64_t live_bytes_lower_bound(const std::vector<PlanItem>& items, uint64_t alignment);

// Plans `items` with `algorithm` (for `best`, `algorithm` in the result names the winner).
// InvalidArgument when the alignment is not a power of two or an item's lifetime is reversed;
// OutOfResources when the aligned sizes sum past uint64.
Result<OffsetPlan> plan_offsets(const std::vector<PlanItem>& items, PlannerAlgorithm algorithm,
                                const OffsetPlannerOptions& options = {});

}  // namespace devplan
