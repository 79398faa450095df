#include <runtime_ext/planning/lifetime.h>

#include <algorithm>

namespace devplan {

int32_t num_steps(const Graph& graph) {
  return std::max<int32_t>(1, static_cast<int32_t>(graph.nodes.size()));
}

std::vector<Lifetime> compute_lifetimes(const Graph& graph) {
  std::vector<Lifetime> life(graph.tensors.size());
  for (int32_t t : graph.inputs) life[t] = Lifetime{0, 0};
  for (size_t k = 0; k < graph.nodes.size(); ++k) {
    const int32_t step = static_cast<int32_t>(k);
    for (int32_t t : graph.nodes[k].outputs) life[t] = Lifetime{step, step};
  }
  for (size_t k = 0; k < graph.nodes.size(); ++k) {
    const int32_t step = static_cast<int32_t>(k);
    for (int32_t t : graph.nodes[k].inputs) life[t].last = std::max(life[t].last, step);
  }
  const int32_t end = num_steps(graph) - 1;
  for (int32_t t : graph.outputs) life[t].last = end;
  return life;
}

}  // namespace devplan
