// What `devplan run` reports: the outputs of one execution, read back to the host, and any
// leak or misuse found when the method was unloaded.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <harness/engine/runtime_kind.h>
#include <harness/values/output_values.h>

namespace devplan::harness {

struct RunReport {
  RuntimeKind runtime = RuntimeKind::Devplan;
  std::string method;
  std::string device_map;  // --device-map (DeviceMap::describe()); "" without one
  std::vector<OutputValues> outputs;
  std::vector<std::string> leak_lines;
  std::vector<std::string> misuse_lines;
};

}  // namespace devplan::harness
