#include <runtime_ext/planning/device_propagation.h>

#include <set>
#include <utility>

namespace devplan {

bool PropagationOptions::skip_h2d_for(const Graph& graph) const {
  auto it = per_method.find(graph.name);
  if (it != per_method.end() && it->second.skip_h2d_for_method_inputs.has_value()) {
    return *it->second.skip_h2d_for_method_inputs;
  }
  if (graph.options.skip_h2d_for_method_inputs.has_value()) {
    return *graph.options.skip_h2d_for_method_inputs;
  }
  return skip_h2d_for_method_inputs;
}

bool PropagationOptions::skip_d2h_for(const Graph& graph) const {
  auto it = per_method.find(graph.name);
  if (it != per_method.end() && it->second.skip_d2h_for_method_outputs.has_value()) {
    return *it->second.skip_d2h_for_method_outputs;
  }
  if (graph.options.skip_d2h_for_method_outputs.has_value()) {
    return *graph.options.skip_d2h_for_method_outputs;
  }
  return skip_d2h_for_method_outputs;
}

namespace {

class Propagator {
 public:
  Propagator(const Graph& in, const PropagationOptions& options) : in_(in), options_(options) {}

  DeviceGraph run() {
    out_.graph = in_;
    // The nodes are rebuilt from this copy (moved, not copied again), with copies inserted.
    std::vector<Node> nodes = std::move(out_.graph.nodes);
    out_.graph.nodes.clear();
    out_.graph.nodes.reserve(nodes.size());
    const size_t n = in_.tensors.size();
    out_.tensor_devices.assign(n, Device::cpu());
    out_.copy_of.assign(n, -1);
    for (const GraphTensor& t : in_.tensors) ids_.insert(t.id);

    for (const Node& node : in_.nodes) {
      if (node.execution_device().is_cpu()) continue;
      for (int32_t t : node.outputs) out_.tensor_devices[t] = node.device;
    }
    if (options_.skip_h2d_for(in_)) {
      std::vector<bool> is_input(n, false);
      std::vector<bool> placed(n, false);
      for (int32_t t : in_.inputs) is_input[t] = true;
      for (const Node& node : in_.nodes) {
        if (node.execution_device().is_cpu()) continue;
        for (int32_t t : node.inputs) {
          if (is_input[t] && !placed[t]) {
            out_.tensor_devices[t] = node.device;
            placed[t] = true;
          }
        }
      }
    }

    for (Node& node : nodes) {
      const Device need = node.execution_device();
      for (int32_t& t : node.inputs) t = on_device(t, need);
      out_.graph.nodes.push_back(std::move(node));
    }
    if (!options_.skip_d2h_for(in_)) {
      for (int32_t& t : out_.graph.outputs) {
        if (!out_.tensor_devices[t].is_cpu()) t = on_device(t, Device::cpu());
      }
    }
    return std::move(out_);
  }

 private:
  // A tensor holding `t`'s value on `device`: `t` itself or a (possibly new) copy.
  int32_t on_device(int32_t t, Device device) {
    if (out_.tensor_devices[t] == device) return t;
    auto key = std::make_pair(t, device);
    auto it = copies_.find(key);
    if (it != copies_.end()) return it->second;

    int32_t source = t;
    const char* op = kH2dCopyOp;
    if (device.is_cpu()) {
      op = kD2hCopyOp;
      ++out_.num_d2h_copies;
    } else {
      if (!out_.tensor_devices[t].is_cpu()) source = on_device(t, Device::cpu());
      ++out_.num_h2d_copies;
    }
    const GraphTensor& spec = in_.tensors[t];
    const int32_t c = static_cast<int32_t>(out_.graph.tensors.size());
    GraphTensor copy_spec = spec;
    copy_spec.id = unique_id(spec.id + "@" + device.to_string());
    out_.graph.tensors.push_back(std::move(copy_spec));
    out_.tensor_devices.push_back(device);
    out_.copy_of.push_back(t);
    out_.graph.add_kernel(op, {source}, {c});
    copies_.emplace(key, c);
    return c;
  }

  std::string unique_id(const std::string& base) {
    std::string id = base;
    for (int k = 2; ids_.count(id) != 0; ++k) id = base + "#" + std::to_string(k);
    ids_.insert(id);
    return id;
  }

  const Graph& in_;
  const PropagationOptions& options_;
  DeviceGraph out_;
  std::map<std::pair<int32_t, Device>, int32_t> copies_;
  std::set<std::string> ids_;
};

}  // namespace

Result<DeviceGraph> propagate_devices(const Graph& graph, const PropagationOptions& options) {
  DEVPLAN_RETURN_IF_ERROR(validate_graph(graph));
  return Propagator(graph, options).run();
}

}  // namespace devplan
