// HostModel: runs a MethodScenario on plain byte arrays, the way the runtime must: host
// buffers start zeroed (PlannedMemory), device buffers start as TrackingDeviceAllocator's fresh
// pattern (0xCD); set_input writes a tensor's bytes; add and mul compute elementwise in order,
// in place, exactly as the host kernels do; copies move bytes; a delegate reads both inputs
// before it writes its output (the simulated backend stages them); moves copy values; frees do
// nothing. The property compares every buffer of a loaded method with the model after
// executing it.
//
// Floating-point results are values, not bit patterns, where the bits are not fixed: a float32
// or float64 result that is NaN may carry any sign and payload (IEEE 754 leaves the choice
// between two NaN operands open, compilers swap the operands of + and *, and CUDA returns its
// canonical NaN), so the model only knows that such an element is a NaN; bytes computed from a
// NaN's bits (read as an integer, or as a float of another width or offset) are unspecified.
// Every other byte is compared exactly. docs/testing.md ("NaN results") says why.
//
//   HostModel model(scenario.methods[0]);
//   model.set_input(0, bytes);
//   model.execute();
//   model.buffer_difference(1, actual);   // "" when buffer 1 holds what it must
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <harness/scenario/model.h>

namespace devplan::testing {

class HostModel {
 public:
  // What the model knows of one byte.
  enum class ByteState : uint8_t {
    Exact,        // holds exactly the model's byte
    Unspecified,  // computed from a NaN's sign or payload: any value
    Nan32,        // first byte of a float32 element that is some NaN
    Nan64,        // first byte of a float64 element that is some NaN
    NanRest,      // a later byte of such an element
  };

  explicit HostModel(const MethodScenario& method);

  // Writes `bytes` (exactly the tensor's size) into tensor `t`.
  void set_input(size_t t, const std::vector<uint8_t>& bytes);
  // Runs every instruction once.
  void execute();

  const std::vector<uint8_t>& buffer(size_t b) const { return buffers_[b]; }
  const std::vector<ByteState>& buffer_states(size_t b) const { return states_[b]; }

  // "" when `actual` may be what buffer `b` / tensor `t` holds after the run, else the first
  // difference, e.g. "byte 16: 0x01 where the model has 0x00" or "bytes 16-19: float32
  // 1.5 where the model has a NaN".
  std::string buffer_difference(size_t b, const std::vector<uint8_t>& actual) const;
  std::string tensor_difference(size_t t, const std::vector<uint8_t>& actual) const;

 private:
  uint8_t* data(size_t t);
  void write_exact(size_t t, const std::vector<uint8_t>& bytes);
  void elementwise(const ScenarioInstruction& in, bool add, double alpha, bool staged);
  template <typename T>
  void apply(const ScenarioInstruction& in, bool staged, bool floating, T (*op)(T, T, double),
             double alpha);

  const MethodScenario& method_;
  std::vector<std::vector<uint8_t>> buffers_;
  std::vector<std::vector<ByteState>> states_;
  std::vector<ScenarioValue> values_;
};

// Deterministic input bytes for tensor `t` of `method` (no float NaNs), varied by `salt`.
std::vector<uint8_t> input_pattern(const MethodScenario& method, size_t t, uint32_t salt);

}  // namespace devplan::testing
