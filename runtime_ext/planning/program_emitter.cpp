#include <runtime_ext/planning/program_emitter.h>

#include <limits>

namespace devplan {
namespace {

bool has_alpha(const std::string& op) { return op == "aten::add.out" || op == "aten::sub.out"; }

}  // namespace

Error emit_method(const MethodMemoryPlan& plan, MethodBuilder& method) {
  const Graph& graph = plan.graph;
  const std::string where = "method '" + graph.name + "'";
  for (const PlannedBuffer& buffer : plan.buffers) method.add_buffer(buffer.size, buffer.device);

  std::vector<int32_t> value_of(graph.tensors.size(), -1);
  for (size_t t = 0; t < graph.tensors.size(); ++t) {
    const PlannedTensor& placed = plan.tensors[t];
    if (!placed.planned) continue;
    const GraphTensor& tensor = graph.tensors[t];
    std::vector<int32_t> sizes;
    for (int64_t d : tensor.shape) {
      if (d < 0 || d > std::numeric_limits<int32_t>::max()) {
        return Error(ErrorCode::InvalidArgument,
                     where + ": tensor '" + tensor.id + "' has a dimension the file cannot hold");
      }
      sizes.push_back(static_cast<int32_t>(d));
    }
    TensorSpec spec = TensorSpec::of(tensor.dtype, sizes, placed.device);
    spec.fully_qualified_name = tensor.id;
    value_of[t] = method.add_planned_tensor(spec, placed.buffer_index, placed.offset);
  }
  auto values = [&](const std::vector<int32_t>& tensors, std::vector<int32_t>* out) -> Error {
    for (int32_t t : tensors) {
      if (value_of[t] < 0) {
        return Error(ErrorCode::InvalidArgument,
                     where + ": tensor '" + graph.tensors[t].id + "' is used but has no lifetime");
      }
      out->push_back(value_of[t]);
    }
    return Error::success();
  };
  int32_t alpha = -1;
  for (const Node& node : graph.nodes) {
    std::vector<int32_t> args;
    DEVPLAN_RETURN_IF_ERROR(values(node.inputs, &args));
    if (node.kind == NodeKind::Delegate) {
      DEVPLAN_RETURN_IF_ERROR(values(node.outputs, &args));
      const std::string device = node.device.to_string();
      const int32_t delegate = method.add_delegate(
          node.op, {}, {{"target_device", std::vector<uint8_t>(device.begin(), device.end())}});
      method.add_delegate_call(delegate, args);
      continue;
    }
    if (has_alpha(node.op)) {
      if (alpha < 0) alpha = method.add_int(1);
      args.push_back(alpha);
    }
    DEVPLAN_RETURN_IF_ERROR(values(node.outputs, &args));
    DEVPLAN_RETURN_IF_ERROR(values(node.outputs, &args));
    const size_t dot = node.op.rfind('.');
    const bool has_overload = dot != std::string::npos && dot > node.op.rfind(':');
    method.add_kernel_call(has_overload ? node.op.substr(0, dot) : node.op,
                           has_overload ? node.op.substr(dot + 1) : "", args);
  }
  std::vector<int32_t> inputs, outputs;
  DEVPLAN_RETURN_IF_ERROR(values(graph.inputs, &inputs));
  DEVPLAN_RETURN_IF_ERROR(values(graph.outputs, &outputs));
  method.set_inputs(inputs);
  method.set_outputs(outputs);
  return Error::success();
}

Result<std::vector<uint8_t>> emit_program(const std::vector<MethodMemoryPlan>& plans) {
  ProgramBuilder builder;
  for (const MethodMemoryPlan& plan : plans) {
    DEVPLAN_RETURN_IF_ERROR(emit_method(plan, builder.add_method(plan.method())));
  }
  return builder.build();
}

}  // namespace devplan
