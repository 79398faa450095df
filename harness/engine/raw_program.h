// Facts read straight from a program's flatbuffer (verified, not validated), for the ExecuTorch
// engine, which needs them for programs that runtime_ext's reader may reject and ExecuTorch
// accepts. Kept apart from ExecuTorch's headers, which declare FlatBuffers types of another
// version.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <runtime_ext/core/device.h>
#include <runtime_ext/core/span.h>
#include <runtime_ext/program/scalar_type.h>

namespace devplan::harness {

// Every delegate id of every method (of `method` only, when given), in order, duplicates
// included; empty when `bytes` is not a readable program.
std::vector<std::string> delegate_ids(Span<const uint8_t> bytes, const std::string& method = "");

// A method input or output whose memory the caller supplies on a device: a device-tagged
// tensor without allocation info (skip-copy programs).
struct CallerSuppliedTensor {
  bool output = false;  // else an input
  size_t index = 0;     // among the method's inputs (or outputs)
  Device device;
  ScalarType dtype = ScalarType::Float;
  std::vector<int32_t> sizes;
  uint64_t nbytes = 0;
};

// The caller-supplied device tensors of method `method`, inputs then outputs, in order (an
// input that is also an output is listed once, as an input); empty when there are none or
// `bytes` is not a readable program.
std::vector<CallerSuppliedTensor> caller_supplied_tensors(Span<const uint8_t> bytes,
                                                          const std::string& method);

}  // namespace devplan::harness
