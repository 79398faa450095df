// Writing a ProgramScenario (model.h) as a program file through ProgramBuilder.
//
//   ProgramScenario s = generate_program_scenario(7, ScenarioOptions());
//   std::vector<uint8_t> bytes = build_program(s);
//   Result<Program> program = Program::load_from_bytes(bytes);   // ok when s is valid
//
//   ProgramBuilder builder = make_scenario_program_builder(s);   // to change before build()
//   builder.method(0).set_raw_buffer_devices({{0, 1, 0}});
//   std::vector<uint8_t> broken = builder.build();
//
// What is written, per method (in scenario order): one planned buffer per scenario buffer
// (add_buffer(size, device)); one planned tensor value per scenario tensor (value t, device
// of its buffer); then the scenario values (value tensors.size() + v); then one chain with the
// instructions:
//   add       aten::add.out            [a, b, alpha, out, out]
//   mul       aten::mul.out            [a, b, out, out]
//   h2d       et_copy::_h2d_copy.out   [self, out, out]
//   d2h       et_copy::_d2h_copy.out   [self, out, out]
//   delegate  its own delegate to kScenarioDelegateBackend (processed data "add", compile spec
//             {"target_device", "<device>"}), DelegateCall [a, b, out]
//   move      MoveCall from -> to;  free  FreeCall
// and the inputs and outputs as the tensors' value indices. A method without instructions has
// no chain. The builder checks nothing: an invalid scenario is written as it is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <harness/scenario/model.h>
#include <runtime_ext/writer/program_builder.h>

namespace devplan {

// A tensor written on `device` instead of its buffer's device (for corruptions).
struct TensorDeviceOverride {
  size_t method = 0;
  size_t tensor = 0;
  Device device;
};

// A builder holding every method of `scenario`, written as above, with `overrides` applied.
ProgramBuilder make_scenario_program_builder(
    const ProgramScenario& scenario, const std::vector<TensorDeviceOverride>& overrides = {});

// make_scenario_program_builder(scenario).build().
std::vector<uint8_t> build_program(const ProgramScenario& scenario);

}  // namespace devplan
