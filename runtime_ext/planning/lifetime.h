// Lifetimes: the steps during which a value's bytes must stay intact, from execution order.
// One rule for every planned method, whether a Graph (the planner, compute_lifetimes) or the
// instructions of a program file (the plan checker, runtime_ext/analysis/plan_check.h, through
// LifetimeRecorder). Steps count from 0, both ends are inclusive, so an instruction's inputs
// and outputs never share bytes:
//   - a value lives from the first to the last step that names it;
//   - a method input lives from step 0 to its last use;
//   - a method output lives from its first use (0 when none) to the last step.
// A method of n steps has max(n, 1) (so a method without instructions still has a step for its
// inputs and outputs to live in). A value that nothing names and that is not an input or
// output has no lifetime and is not planned.
//
//   std::vector<Lifetime> life = compute_lifetimes(graph);   // graph validated
//   if (life[t].planned()) ... life[t].first ... life[t].last
//
//   LifetimeRecorder recorder(num_values);
//   recorder.use(value, step);                                // for every value a step names
//   std::vector<Lifetime> life = std::move(recorder).finish(inputs, outputs, steps);
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <runtime_ext/planning/graph.h>

namespace devplan {

struct Lifetime {
  int32_t first = -1;  // -1: no lifetime
  int32_t last = -1;

  bool planned() const { return first >= 0; }
  // Extends the lifetime to cover `step`.
  void include(int32_t step) {
    if (first < 0 || step < first) first = step;
    if (step > last) last = step;
  }
  // Extends the lifetime to cover `other` (nothing when `other` has no lifetime).
  void include(const Lifetime& other) {
    if (!other.planned()) return;
    include(other.first);
    include(other.last);
  }
  // True when both have a lifetime and they share a step.
  bool overlaps(const Lifetime& o) const {
    return planned() && o.planned() && first <= o.last && o.first <= last;
  }
  friend bool operator==(const Lifetime& a, const Lifetime& b) {
    return a.first == b.first && a.last == b.last;
  }
};

// Number of steps of a method of `instructions` instructions (nodes): max(instructions, 1).
int32_t num_steps_for(size_t instructions);

// Number of steps of a graph: num_steps_for(its node count).
int32_t num_steps(const Graph& graph);

// Lifetimes of `num_values` values from the steps that name them, by the rules above.
class LifetimeRecorder {
 public:
  explicit LifetimeRecorder(size_t num_values) : life_(num_values) {}

  // Step `step` names `value` (an index below num_values).
  void use(int32_t value, int32_t step) { life_[value].include(step); }

  // The lifetimes, after the input and output rules for a method of `steps` steps.
  std::vector<Lifetime> finish(const std::vector<int32_t>& inputs,
                               const std::vector<int32_t>& outputs, int32_t steps) &&;

 private:
  std::vector<Lifetime> life_;
};

// One Lifetime per tensor of `graph`, which must have passed validate_graph: node k names its
// inputs and outputs at step k.
std::vector<Lifetime> compute_lifetimes(const Graph& graph);

}  // namespace devplan
