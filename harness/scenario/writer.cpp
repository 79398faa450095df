#include <harness/scenario/writer.h>

#include <string>

namespace devplan {
namespace {

void add_method(ProgramBuilder& builder, size_t method_index, const MethodScenario& m,
                const std::vector<TensorDeviceOverride>& overrides) {
  MethodBuilder& mb = builder.add_method(m.name);
  for (const ScenarioBuffer& b : m.buffers) mb.add_buffer(b.size, b.device);
  for (size_t t = 0; t < m.tensors.size(); ++t) {
    const ScenarioTensor& x = m.tensors[t];
    Device device = m.tensor_device(t);
    for (const TensorDeviceOverride& o : overrides) {
      if (o.method == method_index && o.tensor == t) device = o.device;
    }
    const TensorSpec spec = TensorSpec::of(x.dtype, x.shape, device);
    if (x.initial) {
      mb.add_planned_tensor_with_initial_value(spec, x.buffer, x.offset,
                                               scenario_initial_value(m, t));
    } else {
      mb.add_planned_tensor(spec, x.buffer, x.offset);
    }
  }
  for (const ScenarioValue& v : m.values) {
    switch (v.kind) {
      case ScenarioValueKind::Null:
        mb.add_null();
        break;
      case ScenarioValueKind::Int:
        mb.add_int(v.int_value);
        break;
      case ScenarioValueKind::Bool:
        mb.add_bool(v.bool_value);
        break;
      case ScenarioValueKind::Double:
        mb.add_double(v.double_value);
        break;
      case ScenarioValueKind::IntList:
        mb.add_int_list(v.int_list);
        break;
      case ScenarioValueKind::DoubleList:
        mb.add_double_list(v.double_list);
        break;
      case ScenarioValueKind::BoolList:
        mb.add_bool_list(v.bool_list);
        break;
      case ScenarioValueKind::TensorList: {
        std::vector<int32_t> items;
        for (int32_t t : v.tensor_list) items.push_back(m.tensor_value_index(t));
        mb.add_tensor_list(std::move(items));
        break;
      }
    }
  }
  auto tv = [&](size_t k, const ScenarioInstruction& in) {
    return k < in.tensors.size() ? m.tensor_value_index(in.tensors[k]) : -1;
  };
  auto vv = [&](size_t k, const ScenarioInstruction& in) {
    return k < in.values.size() ? m.value_value_index(in.values[k]) : -1;
  };
  for (const ScenarioInstruction& in : m.instructions) {
    switch (in.op) {
      case ScenarioOp::Add:
        mb.add_kernel_call("aten::add", "out",
                           {tv(0, in), tv(1, in), vv(0, in), tv(2, in), tv(2, in)});
        break;
      case ScenarioOp::Mul:
        mb.add_kernel_call("aten::mul", "out", {tv(0, in), tv(1, in), tv(2, in), tv(2, in)});
        break;
      case ScenarioOp::CopyH2D:
        mb.add_kernel_call("et_copy::_h2d_copy", "out", {tv(0, in), tv(1, in), tv(1, in)});
        break;
      case ScenarioOp::CopyD2H:
        mb.add_kernel_call("et_copy::_d2h_copy", "out", {tv(0, in), tv(1, in), tv(1, in)});
        break;
      case ScenarioOp::DelegateAdd: {
        const Device device = in.tensors.empty() ? Device::cpu() : m.tensor_device(in.tensors[0]);
        const std::string target = device.to_string();
        const int32_t d = mb.add_delegate(
            kScenarioDelegateBackend, {'a', 'd', 'd'},
            {{"target_device", std::vector<uint8_t>(target.begin(), target.end())}});
        mb.add_delegate_call(d, {tv(0, in), tv(1, in), tv(2, in)});
        break;
      }
      case ScenarioOp::Move:
        mb.add_move(vv(0, in), vv(1, in));
        break;
      case ScenarioOp::Free:
        mb.add_free(in.tensors.empty() ? vv(0, in) : tv(0, in));
        break;
    }
  }
  std::vector<int32_t> inputs;
  for (int32_t t : m.inputs) inputs.push_back(m.tensor_value_index(t));
  std::vector<int32_t> outputs;
  for (int32_t t : m.outputs) outputs.push_back(m.tensor_value_index(t));
  mb.set_inputs(std::move(inputs));
  mb.set_outputs(std::move(outputs));
}

}  // namespace

ProgramBuilder make_scenario_program_builder(const ProgramScenario& scenario,
                                             const std::vector<TensorDeviceOverride>& overrides) {
  ProgramBuilder builder;
  for (size_t i = 0; i < scenario.methods.size(); ++i) {
    add_method(builder, i, scenario.methods[i], overrides);
  }
  return builder;
}

std::vector<uint8_t> build_program(const ProgramScenario& scenario) {
  return make_scenario_program_builder(scenario).build();
}

}  // namespace devplan
