// What `devplan run` reports: the outputs of one execution, read back to the host, and any
// leak or misuse found when the method was unloaded.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <harness/engine/runtime_kind.h>
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

struct RunReport {
  RuntimeKind runtime = RuntimeKind::Devplan;
  std::string method;
  std::string device_map;  // --device-map (DeviceMap::describe()); "" without one
  std::vector<OutputValues> outputs;
  std::vector<std::string> leak_lines;
  std::vector<std::string> misuse_lines;
};

}  // namespace devplan::harness
