// Graphs shared by the planning tests.
#pragma once

#include <runtime_ext/planning/graph.h>

namespace devplan::testing_graphs {

// ExecuTorch's reference device program: z = add(a, b) in a delegate targeting cuda:0, on 2x2
// float tensors (16 bytes each).
inline Graph reference_add(Device device = Device::cuda(0)) {
  Graph g;
  g.name = "forward";
  const int32_t a = g.add_tensor("a", ScalarType::Float, {2, 2});
  const int32_t b = g.add_tensor("b", ScalarType::Float, {2, 2});
  const int32_t z = g.add_tensor("z", ScalarType::Float, {2, 2});
  g.inputs = {a, b};
  g.outputs = {z};
  g.add_delegate("DeviceAddBackend", device, {a, b}, {z});
  return g;
}

// A host chain of `sizes.size()` float tensors [n] (4n bytes): x0 -> relu -> x1 -> ... .
inline Graph host_chain(const std::vector<int64_t>& elements) {
  Graph g;
  for (size_t i = 0; i < elements.size(); ++i) {
    g.add_tensor("x" + std::to_string(i), ScalarType::Float, {elements[i]});
  }
  g.inputs = {0};
  for (size_t i = 1; i < elements.size(); ++i) {
    g.add_kernel("aten::relu.out", {static_cast<int32_t>(i - 1)}, {static_cast<int32_t>(i)});
  }
  g.outputs = {static_cast<int32_t>(elements.size() - 1)};
  return g;
}

}  // namespace devplan::testing_graphs
