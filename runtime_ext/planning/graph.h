// Graph: one method as the memory planner sees it. Tensors with a dtype and a static shape,
// the method's inputs and outputs, and nodes in execution order. A node is a kernel call
// (an operator name such as "aten::add.out", always run on the host) or a delegate call (a
// backend id plus the device the delegate targets). Operators and backends are opaque names:
// the planner checks the graph's structure, never operator arity or shapes.
//
//   Graph g;
//   g.name = "forward";
//   int32_t a = g.add_tensor("a", ScalarType::Float, {2, 2});
//   int32_t b = g.add_tensor("b", ScalarType::Float, {2, 2});
//   int32_t z = g.add_tensor("z", ScalarType::Float, {2, 2});
//   g.inputs = {a, b};
//   g.outputs = {z};
//   g.add_delegate("DeviceAddBackend", Device::cuda(0), {a, b}, {z});
//   Error err = validate_graph(g);   // ok
//
// Tensors are referred to by their index in Graph::tensors; ids are for people and files.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <runtime_ext/core/alignment.h>
#include <runtime_ext/core/device.h>
#include <runtime_ext/core/error.h>
#include <runtime_ext/core/result.h>
#include <runtime_ext/program/scalar_type.h>

namespace devplan {

// The largest dimension a tensor may have: the program file stores sizes as int32.
constexpr int64_t kMaxTensorDim = INT32_MAX;

// A tensor of the graph. (Not called TensorSpec: runtime_ext/writer/method_builder.h has one
// of its own, for the file writer.)
struct GraphTensor {
  std::string id;
  ScalarType dtype = ScalarType::Float;
  std::vector<int64_t> shape;  // an empty shape is a scalar (one element)
  uint64_t nbytes = 0;         // product(shape) * element_size(dtype); set by Graph::add_tensor
};

enum class NodeKind : uint8_t { Kernel, Delegate };

// "kernel" / "delegate".
const char* node_kind_name(NodeKind kind);

struct Node {
  NodeKind kind = NodeKind::Kernel;
  // Kernel: the operator with its overload ("aten::add.out"). Delegate: the backend id.
  std::string op;
  // Delegate: the device it targets (cpu:0 means a host delegate). Kernel: always cpu:0.
  Device device;
  std::vector<int32_t> inputs;   // tensor indices, in argument order
  std::vector<int32_t> outputs;  // tensor indices

  // The device the node runs on: the delegate's target, cpu:0 for kernels.
  Device execution_device() const { return kind == NodeKind::Delegate ? device : Device::cpu(); }

  // How errors name the node: "aten::add.out" or "delegate DeviceAddBackend on cuda:0".
  std::string label() const;
};

// Per-method copy settings a graph may carry itself (the "options" object of the graph JSON).
// Unset fields defer to the caller's PropagationOptions.
struct MethodCopyOptions {
  std::optional<bool> skip_h2d_for_method_inputs;
  std::optional<bool> skip_d2h_for_method_outputs;

  friend bool operator==(const MethodCopyOptions& a, const MethodCopyOptions& b) {
    return a.skip_h2d_for_method_inputs == b.skip_h2d_for_method_inputs &&
           a.skip_d2h_for_method_outputs == b.skip_d2h_for_method_outputs;
  }
};

struct Graph {
  std::string name = "forward";
  uint64_t alignment = kDefaultAlignment;  // the planner's alignment for this method
  std::vector<GraphTensor> tensors;
  std::vector<int32_t> inputs;   // tensor indices
  std::vector<int32_t> outputs;  // tensor indices
  std::vector<Node> nodes;       // execution order
  MethodCopyOptions options;

  // Appends a tensor and returns its index. nbytes is computed from dtype and shape; when that
  // is impossible (unknown dtype, negative dimension, overflow) nbytes is 0 and
  // validate_graph reports the tensor.
  int32_t add_tensor(std::string id, ScalarType dtype, std::vector<int64_t> shape);

  // Appends a kernel call (runs on the host).
  void add_kernel(std::string op, std::vector<int32_t> inputs, std::vector<int32_t> outputs);

  // Appends a delegate call to backend `backend` targeting `device`.
  void add_delegate(std::string backend, Device device, std::vector<int32_t> inputs,
                    std::vector<int32_t> outputs);

  // The index of the tensor with id `id`, or -1. Linear in the number of tensors.
  int32_t find_tensor(const std::string& id) const;
};

// Bytes of a tensor: product(shape) * element_size(dtype); an empty shape is one element.
// InvalidArgument for an unknown dtype, a negative dimension, a dimension above kMaxTensorDim or
// a size that overflows uint64.
Result<uint64_t> tensor_nbytes(ScalarType dtype, const std::vector<int64_t>& shape);

// "float32[2, 2]": how messages and reports print a tensor's type.
std::string tensor_type_string(ScalarType dtype, const std::vector<int64_t>& shape);

// Checks the graph's structure. Ok, or InvalidArgument naming the method and the node (by index
// and label) or tensor at fault:
//   - alignment is a power of two; tensor ids are non-empty and unique; dtype known, shape
//     dimensions in [0, kMaxTensorDim], nbytes equal to tensor_nbytes;
//   - every tensor index (inputs, outputs, node arguments) is in range;
//   - a method input is listed once and is produced by no node; a tensor is produced by at most
//     one node, once;
//   - every node input is defined before the node runs (a method input or an output of an
//     earlier node): use before definition, including any cycle, is an error;
//   - every method output is listed once and is defined (a method input or produced by a node);
//   - kernels name an operator (non-empty op) and have device cpu:0; delegates name a backend.
Error validate_graph(const Graph& graph);

}  // namespace devplan
