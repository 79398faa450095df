// What an engine lacks to load or run a method (kernels, delegates' backends): recorded by the
// engine session where it learns it, and reported as "not run" or "not probed", never as an
// error.
#pragma once

#include <string>
#include <vector>

namespace devplan::harness {

struct MissingCapability {
  std::vector<std::string> kernels;   // operators without a kernel, each once ("aten::sin.out")
  std::vector<std::string> backends;  // delegates' backends not registered, each once
  // An engine that says an operator is missing without naming it: its error message.
  std::string unnamed;

  bool empty() const { return kernels.empty() && backends.empty() && unnamed.empty(); }
  // "no kernel for aten::sin.out, aten::cos.out; no backend CoreMLBackend", "an operator has no
  // kernel (<the engine's message>)" when it named none; "" when nothing is missing.
  std::string text() const;
  bool operator==(const MissingCapability& other) const {
    return kernels == other.kernels && backends == other.backends && unnamed == other.unnamed;
  }
};

}  // namespace devplan::harness
