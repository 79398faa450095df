// HostModel: runs a MethodScenario on plain byte arrays, the way the runtime must: host
// buffers start zeroed (PlannedMemory), device buffers start as TrackingDeviceAllocator's fresh
// pattern (0xCD); set_input writes a tensor's bytes; add and mul compute elementwise in order,
// in place, exactly as the host kernels do; copies move bytes; a delegate reads both inputs
// before it writes its output (the simulated backend stages them); moves copy values; frees do
// nothing. The property compares every buffer of a loaded method with the model after
// executing it.
//
//   HostModel model(scenario.methods[0]);
//   model.set_input(0, bytes);
//   model.execute();
//   model.buffer(1);   // what planned buffer 1 must hold now
#pragma once

#include <cstdint>
#include <vector>

#include <harness/scenario/program_scenario.h>

namespace devplan::testing {

class HostModel {
 public:
  explicit HostModel(const MethodScenario& method);

  // Writes `bytes` (exactly the tensor's size) into tensor `t`.
  void set_input(size_t t, const std::vector<uint8_t>& bytes);
  // Runs every instruction once.
  void execute();

  const std::vector<uint8_t>& buffer(size_t b) const { return buffers_[b]; }
  std::vector<uint8_t> tensor_bytes(size_t t) const;

 private:
  uint8_t* data(size_t t);
  void elementwise(const ScenarioInstruction& in, bool add, double alpha, bool staged);

  const MethodScenario& method_;
  std::vector<std::vector<uint8_t>> buffers_;
  std::vector<ScenarioValue> values_;
};

// Deterministic input bytes for tensor `t` of `method` (no float NaNs), varied by `salt`.
std::vector<uint8_t> input_pattern(const MethodScenario& method, size_t t, uint32_t salt);

}  // namespace devplan::testing
