// The graph-planner fuzz entry point: one input's bytes read as graph JSON (harness/graph), and
// every graph that reads planned by every planner (runtime_ext/planning), with the plans
// checked by the independent verifier. Shared by the libFuzzer target fuzz_graph_plan and by
// the g++-built replay test.
//
//   GraphPlanOutcome outcome = run_graph_plan(Span<const uint8_t>(data, size));
//   if (!outcome.clean()) { fprintf(stderr, "%s\n", outcome.finding.c_str()); abort(); }
//
// What one input goes through:
//   1. read_graphs over the bytes as text (JSON parser, graph reader, validate_graph).
//   2. On success: write_graphs, read back, written again: the two texts must be equal.
//   3. plan_methods with each algorithm (naive, greedy, greedy_breadth, search, best; the
//      searches capped at kSearchIterations, the graphs at kMaxPlannedTensors tensors): a plan
//      must pass verify_plan, and no buffer may be smaller than its lower bound.
//
// A returned Error is fine. A finding is: an Error without a message, a round trip that
// changes the graphs, a plan that reading accepted but that fails verification (or undercuts
// the lower bound), or algorithms that disagree on success.
//
// Threading: no shared state; safe from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <runtime_ext/core/span.h>

namespace devplan::fuzz {

// Local-search iterations per device partition for `search` and `best` (the default is at
// least 5,000, too slow for thousands of inputs a second).
inline constexpr int64_t kGraphSearchIterations = 64;
// Graphs with more tensors than this are read but not planned (the planners' cost is not what
// this target looks for).
inline constexpr size_t kMaxPlannedTensors = 512;

struct GraphPlanOutcome {
  bool read = false;    // read_graphs succeeded
  size_t graphs = 0;    // methods read
  size_t planned = 0;   // successful plan_methods calls (one per algorithm)
  std::string finding;  // "" when clean; else one line per problem, each ending in '\n'

  bool clean() const { return finding.empty(); }
};

GraphPlanOutcome run_graph_plan(Span<const uint8_t> bytes);

}  // namespace devplan::fuzz
