#include <harness/test/probe_test_programs.h>

#include <cstring>
#include <string>

#include <mocks/simulated_device_backend.h>
#include <runtime_ext/writer/program_builder.h>

namespace devplan::harness::testing {
namespace {

std::vector<uint8_t> ascii(const std::string& text) {
  return std::vector<uint8_t>(text.begin(), text.end());
}

}  // namespace

std::vector<uint8_t> broadcast_add_program() {
  ProgramBuilder builder;
  MethodBuilder& m = builder.add_method("forward");
  const uint32_t host = m.add_buffer(96);
  const int32_t a = m.add_planned_tensor(TensorSpec::of(ScalarType::Float, {2, 3}), host, 0);
  const int32_t b = m.add_planned_tensor(TensorSpec::of(ScalarType::Float, {3}), host, 32);
  const int32_t out = m.add_planned_tensor(TensorSpec::of(ScalarType::Float, {2, 3}), host, 64);
  const int32_t alpha = m.add_int(1);
  m.add_chain();
  m.add_kernel_call("aten::add", "out", {a, b, alpha, out, out});
  m.set_inputs({a, b});
  m.set_outputs({out});
  return builder.build();
}

std::vector<uint8_t> two_device_outputs_program() {
  ProgramBuilder builder;
  MethodBuilder& m = builder.add_method("forward");
  const Device cuda0 = Device::cuda(0);
  const TensorSpec host_spec = TensorSpec::of(ScalarType::Float, {2, 2});
  const TensorSpec device_spec = TensorSpec::of(ScalarType::Float, {2, 2}, cuda0);
  const uint32_t host = m.add_buffer(64);
  const uint32_t dev = m.add_buffer(64, cuda0);
  const int32_t a = m.add_planned_tensor(host_spec, host, 0);
  const int32_t b = m.add_planned_tensor(host_spec, host, 16);
  const int32_t a_dev = m.add_planned_tensor(device_spec, dev, 0);
  const int32_t b_dev = m.add_planned_tensor(device_spec, dev, 16);
  const int32_t sum_dev = m.add_planned_tensor(device_spec, dev, 32);
  const int32_t product_dev = m.add_planned_tensor(device_spec, dev, 48);
  const int32_t out0 = m.add_planned_tensor(host_spec, host, 32);
  const int32_t out1 = m.add_planned_tensor(host_spec, host, 48);
  const int32_t h2d = m.add_operator("et_copy::_h2d_copy", "out");
  const int32_t d2h = m.add_operator("et_copy::_d2h_copy", "out");
  const std::vector<std::pair<std::string, std::vector<uint8_t>>> specs = {
      {"target_device", ascii("cuda:0")}};
  const int32_t add =
      m.add_delegate(SimulatedDeviceBackend::kDevplanBackendId, ascii("add"), specs);
  const int32_t mul =
      m.add_delegate(SimulatedDeviceBackend::kDevplanBackendId, ascii("mul"), specs);
  m.add_chain();
  m.add_kernel_call(h2d, {a, a_dev, a_dev});
  m.add_kernel_call(h2d, {b, b_dev, b_dev});
  m.add_delegate_call(add, {a_dev, b_dev, sum_dev});
  m.add_delegate_call(mul, {a_dev, b_dev, product_dev});
  m.add_kernel_call(d2h, {sum_dev, out0, out0});
  m.add_kernel_call(d2h, {product_dev, out1, out1});
  m.set_inputs({a, b});
  m.set_outputs({out0, out1});
  return builder.build();
}

std::vector<uint8_t> colliding_initial_values_program() {
  ProgramBuilder builder;
  MethodBuilder& m = builder.add_method("forward");
  const uint32_t host = m.add_buffer(8);
  const auto bytes_of = [](float x) {
    std::vector<uint8_t> out(4);
    std::memcpy(out.data(), &x, 4);
    return out;
  };
  const TensorSpec spec = TensorSpec::of(ScalarType::Float, {1});
  const int32_t out = m.add_planned_tensor_with_initial_value(spec, host, 0, bytes_of(1.5f));
  m.add_planned_tensor_with_initial_value(spec, host, 0, bytes_of(-4.5f));
  m.set_outputs({out});
  return builder.build();
}

}  // namespace devplan::harness::testing
