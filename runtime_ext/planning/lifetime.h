// Lifetimes: the steps during which a tensor's bytes must stay intact, from execution order.
// Step k is node k. Both ends are inclusive, so an instruction's inputs and outputs never
// share bytes:
//   - a tensor produced by node p lives from p to its last use (p alone when never used);
//   - a method input lives from step 0 to its last use;
//   - a method output lives from its definition to the last step.
// A tensor that is neither a method input nor produced has no lifetime and is not planned.
//
//   std::vector<Lifetime> life = compute_lifetimes(graph);   // graph validated
//   if (life[t].planned()) ... life[t].first ... life[t].last
#pragma once

#include <cstdint>
#include <vector>

#include <runtime_ext/planning/graph.h>

namespace devplan {

struct Lifetime {
  int32_t first = -1;  // -1: no lifetime
  int32_t last = -1;

  bool planned() const { return first >= 0; }
  // True when both have a lifetime and they share a step.
  bool overlaps(const Lifetime& o) const {
    return planned() && o.planned() && first <= o.last && o.first <= last;
  }
  friend bool operator==(const Lifetime& a, const Lifetime& b) {
    return a.first == b.first && a.last == b.last;
  }
};

// Number of steps of a method: its node count, and 1 for a method without nodes (so its
// inputs and outputs still have a step to live in).
int32_t num_steps(const Graph& graph);

// One Lifetime per tensor of `graph`, which must have passed validate_graph.
std::vector<Lifetime> compute_lifetimes(const Graph& graph);

}  // namespace devplan
