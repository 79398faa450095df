// One output of an execution, read back to the host: a tensor's elements with their dtype and
// shape, or another value formatted.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <runtime_ext/core/device.h>
#include <runtime_ext/program/method_plan.h>

namespace devplan::harness {

struct OutputValues {
  size_t index = 0;
  ValueTag tag = ValueTag::None;
  ScalarType dtype = ScalarType::Float;  // tensors only
  std::vector<int32_t> sizes;            // tensors only
  Device device;                         // tensors only: where the output lived
  std::vector<uint8_t> bytes;            // tensors only: the elements, read back to the host
  std::vector<std::string> values;       // other values: formatted (output_texts gives both)
};

}  // namespace devplan::harness
