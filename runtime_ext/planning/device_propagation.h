// Device propagation: decides where every tensor lives and inserts the host/device copies the
// runtime needs at the boundaries.
//
// Rules:
//   - a tensor produced by a delegate that targets a device lives on that device; every other
//     tensor lives on cpu:0 (kernels run on the host);
//   - a method input lives on cpu:0; with skip_h2d_for_method_inputs it lives instead on the
//     device of the first device delegate that consumes it (no copy for that device);
//   - where a node needs a tensor on another device than the tensor's own, a copy is inserted
//     just before the first node that needs it, and later nodes share it: one copy per
//     (tensor, device). Host to device is `et_copy::_h2d_copy.out`, device to host
//     `et_copy::_d2h_copy.out`; device to another device goes through the host (a d2h copy,
//     itself shared with host consumers, then an h2d copy), since allocators have no
//     device-to-device copy;
//   - a method output on a device is copied back to the host (appended after the last node,
//     in output order, unless a host copy exists already) and the method output becomes the
//     host copy; with skip_d2h_for_method_outputs the output stays on its device.
// A copy's output tensor is named "<id>@<device>" ("a@cuda:0"), with "#2", "#3"... appended when
// that id is taken.
//
//   PropagationOptions opts;
//   opts.per_method["encode"].skip_h2d_for_method_inputs = true;  // only method "encode"
//   Result<DeviceGraph> dg = propagate_devices(graph, opts);
//   dg->graph.nodes;          // with the copies
//   dg->tensor_devices[t];    // where tensor t lives
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include <runtime_ext/core/device.h>
#include <runtime_ext/core/result.h>
#include <runtime_ext/planning/graph.h>

namespace devplan {

constexpr char kH2dCopyOp[] = "et_copy::_h2d_copy.out";
constexpr char kD2hCopyOp[] = "et_copy::_d2h_copy.out";

struct PropagationOptions {
  // Settings for every method...
  bool skip_h2d_for_method_inputs = false;
  bool skip_d2h_for_method_outputs = false;
  // ...overridden per method by name. A per-method setting applies to that method only and wins
  // over the graph's own Graph::options, which win over the settings for every method.
  std::map<std::string, MethodCopyOptions> per_method;

  // The effective settings for `graph` (looked up by its name).
  bool skip_h2d_for(const Graph& graph) const;
  bool skip_d2h_for(const Graph& graph) const;
};

struct DeviceGraph {
  Graph graph;                         // the input graph plus copy nodes and copy tensors
  std::vector<Device> tensor_devices;  // where each tensor of `graph` lives
  // For each tensor of `graph`: the tensor it is a copy of (an index into `graph`), or -1 for
  // the tensors of the input graph, which keep their indices.
  std::vector<int32_t> copy_of;
  size_t num_h2d_copies = 0;
  size_t num_d2h_copies = 0;
};

// Validates `graph` (validate_graph's errors) and applies the rules above. Deterministic.
Result<DeviceGraph> propagate_devices(const Graph& graph, const PropagationOptions& options = {});

}  // namespace devplan
