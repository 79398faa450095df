#include <runtime_ext/planning/lifetime.h>

#include <algorithm>
#include <utility>

namespace devplan {

int32_t num_steps_for(size_t instructions) {
  return std::max<int32_t>(1, static_cast<int32_t>(instructions));
}

int32_t num_steps(const Graph& graph) { return num_steps_for(graph.nodes.size()); }

std::vector<Lifetime> LifetimeRecorder::finish(const std::vector<int32_t>& inputs,
                                               const std::vector<int32_t>& outputs,
                                               int32_t steps) && {
  const int32_t last = steps - 1;
  for (int32_t input : inputs) {
    life_[input].first = 0;
    life_[input].last = std::max(life_[input].last, 0);
  }
  for (int32_t output : outputs) {
    if (life_[output].first < 0) life_[output].first = 0;
    life_[output].last = last;
  }
  return std::move(life_);
}

std::vector<Lifetime> compute_lifetimes(const Graph& graph) {
  // In a validated graph a tensor's first use is the node that produces it (or step 0 for an
  // input), so lifetimes from uses are lifetimes from definitions.
  LifetimeRecorder recorder(graph.tensors.size());
  for (size_t k = 0; k < graph.nodes.size(); ++k) {
    const int32_t step = static_cast<int32_t>(k);
    for (int32_t t : graph.nodes[k].inputs) recorder.use(t, step);
    for (int32_t t : graph.nodes[k].outputs) recorder.use(t, step);
  }
  return std::move(recorder).finish(graph.inputs, graph.outputs, num_steps(graph));
}

}  // namespace devplan
