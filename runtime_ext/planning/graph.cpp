#include <runtime_ext/planning/graph.h>

#include <map>
#include <utility>

namespace devplan {

const char* node_kind_name(NodeKind kind) {
  return kind == NodeKind::Delegate ? "delegate" : "kernel";
}

std::string Node::label() const {
  if (kind == NodeKind::Delegate) return "delegate " + op + " on " + device.to_string();
  return op;
}

int32_t Graph::add_tensor(std::string id, ScalarType dtype, std::vector<int64_t> shape) {
  GraphTensor spec;
  spec.id = std::move(id);
  spec.dtype = dtype;
  Result<uint64_t> nbytes = tensor_nbytes(dtype, shape);
  spec.nbytes = nbytes.ok() ? *nbytes : 0;
  spec.shape = std::move(shape);
  tensors.push_back(std::move(spec));
  return static_cast<int32_t>(tensors.size() - 1);
}

void Graph::add_kernel(std::string op, std::vector<int32_t> in, std::vector<int32_t> out) {
  Node node;
  node.kind = NodeKind::Kernel;
  node.op = std::move(op);
  node.inputs = std::move(in);
  node.outputs = std::move(out);
  nodes.push_back(std::move(node));
}

void Graph::add_delegate(std::string backend, Device device, std::vector<int32_t> in,
                         std::vector<int32_t> out) {
  Node node;
  node.kind = NodeKind::Delegate;
  node.op = std::move(backend);
  node.device = device;
  node.inputs = std::move(in);
  node.outputs = std::move(out);
  nodes.push_back(std::move(node));
}

int32_t Graph::find_tensor(const std::string& id) const {
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].id == id) return static_cast<int32_t>(i);
  }
  return -1;
}

std::string tensor_type_string(ScalarType dtype, const std::vector<int64_t>& shape) {
  std::string s = scalar_type_name(dtype) + "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

Result<uint64_t> tensor_nbytes(ScalarType dtype, const std::vector<int64_t>& shape) {
  const uint64_t elem = element_size(dtype);
  if (elem == 0) {
    return Error(ErrorCode::InvalidArgument, "unknown dtype " + scalar_type_name(dtype));
  }
  uint64_t total = elem;
  for (int64_t dim : shape) {
    if (dim < 0) {
      return Error(ErrorCode::InvalidArgument, "negative dimension " + std::to_string(dim) +
                                                   " in shape " + tensor_type_string(dtype, shape));
    }
    if (dim > kMaxTensorDim) {
      return Error(ErrorCode::InvalidArgument, "dimension " + std::to_string(dim) + " exceeds " +
                                                   std::to_string(kMaxTensorDim) + " in shape " +
                                                   tensor_type_string(dtype, shape));
    }
    const uint64_t d = static_cast<uint64_t>(dim);
    if (d != 0 && total > UINT64_MAX / d) {
      return Error(ErrorCode::InvalidArgument,
                   "size of " + tensor_type_string(dtype, shape) + " overflows uint64");
    }
    total *= d;
  }
  return total;
}

namespace {

class GraphValidator {
 public:
  explicit GraphValidator(const Graph& g) : g_(g) {}

  Error run() {
    if (!is_power_of_two(g_.alignment)) {
      return fail("alignment " + std::to_string(g_.alignment) + " is not a power of two");
    }
    DEVPLAN_RETURN_IF_ERROR(check_tensors());
    const size_t n = g_.tensors.size();
    // Step at which each tensor becomes defined: -1 method input, node index, or kUndefined.
    defined_at_.assign(n, kUndefined);
    for (size_t i = 0; i < g_.inputs.size(); ++i) {
      const int32_t t = g_.inputs[i];
      if (!in_range(t)) {
        return fail("input " + std::to_string(i) + " refers to tensor index " + std::to_string(t) +
                    ", outside [0, " + std::to_string(n) + ")");
      }
      if (defined_at_[t] != kUndefined) {
        return fail("tensor '" + g_.tensors[t].id + "' is listed twice as a method input");
      }
      defined_at_[t] = -1;
    }
    for (size_t k = 0; k < g_.nodes.size(); ++k) {
      DEVPLAN_RETURN_IF_ERROR(check_node(k));
    }
    std::vector<bool> is_output(n, false);
    for (size_t i = 0; i < g_.outputs.size(); ++i) {
      const int32_t t = g_.outputs[i];
      if (!in_range(t)) {
        return fail("output " + std::to_string(i) + " refers to tensor index " + std::to_string(t) +
                    ", outside [0, " + std::to_string(n) + ")");
      }
      if (is_output[t]) {
        return fail("tensor '" + g_.tensors[t].id + "' is listed twice as a method output");
      }
      is_output[t] = true;
      if (defined_at_[t] == kUndefined) {
        return fail("output '" + g_.tensors[t].id +
                    "' is never defined (not a method input and produced by no node)");
      }
    }
    return Error::success();
  }

 private:
  static constexpr int64_t kUndefined = INT64_MIN;

  bool in_range(int32_t t) const { return t >= 0 && static_cast<size_t>(t) < g_.tensors.size(); }

  Error fail(const std::string& what) const {
    return Error(ErrorCode::InvalidArgument, "method '" + g_.name + "': " + what);
  }

  Error fail_node(size_t k, const std::string& what) const {
    return fail("node " + std::to_string(k) + " (" + g_.nodes[k].label() + "): " + what);
  }

  Error check_tensors() {
    std::map<std::string, size_t> seen;
    for (size_t i = 0; i < g_.tensors.size(); ++i) {
      const GraphTensor& t = g_.tensors[i];
      if (t.id.empty()) return fail("tensor " + std::to_string(i) + " has an empty id");
      auto [it, inserted] = seen.emplace(t.id, i);
      if (!inserted) {
        return fail("tensor id '" + t.id + "' is used by tensors " + std::to_string(it->second) +
                    " and " + std::to_string(i));
      }
      Result<uint64_t> nbytes = tensor_nbytes(t.dtype, t.shape);
      if (!nbytes.ok()) return fail("tensor '" + t.id + "': " + nbytes.error().message());
      if (*nbytes != t.nbytes) {
        return fail("tensor '" + t.id + "': nbytes " + std::to_string(t.nbytes) +
                    " does not match " + tensor_type_string(t.dtype, t.shape) + " (" +
                    std::to_string(*nbytes) + " bytes)");
      }
    }
    return Error::success();
  }

  Error check_node(size_t k) {
    const Node& node = g_.nodes[k];
    const size_t n = g_.tensors.size();
    if (node.op.empty()) {
      return fail_node(k, node.kind == NodeKind::Kernel ? "kernel has no operator name"
                                                        : "delegate has no backend id");
    }
    if (node.kind == NodeKind::Kernel && !node.device.is_cpu()) {
      return fail_node(k, "a kernel runs on cpu:0, not " + node.device.to_string());
    }
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const int32_t t = node.inputs[i];
      if (!in_range(t)) {
        return fail_node(k, "input " + std::to_string(i) + " refers to tensor index " +
                                std::to_string(t) + ", outside [0, " + std::to_string(n) + ")");
      }
      if (defined_at_[t] == kUndefined) {
        // Either produced later (a cycle or an order problem) or never.
        for (size_t later = k; later < g_.nodes.size(); ++later) {
          for (int32_t o : g_.nodes[later].outputs) {
            if (o == t) {
              return fail_node(k, "input '" + g_.tensors[t].id +
                                      "' is used before it is defined (produced by node " +
                                      std::to_string(later) + " (" + g_.nodes[later].label() +
                                      "); a cycle or a node out of order)");
            }
          }
        }
        return fail_node(k, "input '" + g_.tensors[t].id +
                                "' is never defined (not a method input and produced by no node)");
      }
    }
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      const int32_t t = node.outputs[i];
      if (!in_range(t)) {
        return fail_node(k, "output " + std::to_string(i) + " refers to tensor index " +
                                std::to_string(t) + ", outside [0, " + std::to_string(n) + ")");
      }
      const int64_t d = defined_at_[t];
      if (d == -1) {
        return fail_node(k, "output '" + g_.tensors[t].id +
                                "' is a method input; a method input cannot be produced");
      }
      if (d != kUndefined) {
        return fail_node(k, "output '" + g_.tensors[t].id +
                                "' is produced twice (already by node " + std::to_string(d) + " (" +
                                g_.nodes[d].label() + "))");
      }
      defined_at_[t] = static_cast<int64_t>(k);
    }
    return Error::success();
  }

  const Graph& g_;
  std::vector<int64_t> defined_at_;
};

}  // namespace

Error validate_graph(const Graph& graph) { return GraphValidator(graph).run(); }

}  // namespace devplan
