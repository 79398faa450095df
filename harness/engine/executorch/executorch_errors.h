// ExecuTorch's errors and devices in devplan's terms, for the ExecuTorch engine
// (executorch_session.cpp): an et::Error becomes a devplan Error carrying ExecuTorch's own log
// lines, and what the log says is missing (operators, backends) a MissingCapability.
#pragma once

#include <string>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/portable_type/device.h>

#include <harness/engine/missing_capability.h>
#include <runtime_ext/core/device.h>
#include <runtime_ext/core/error.h>

namespace devplan::harness::executorch_engine {

// A devplan Error for ExecuTorch's `e`, with what was being done and ExecuTorch's error lines
// (taken from the bridge's log): "ExecuTorch: load_method('forward') failed: <its log lines>".
// A missing operator is named first, each once, as devplan's engine names it ("operator X has
// no kernel"), then the log. With `missing`, also records what ExecuTorch says is missing:
// ExecuTorch reports it only in its log ("Missing operator: [3] aten::sin.out", "Backend X is
// not registered."), so the log is read here, where it is taken, and nowhere else.
Error from_et(::executorch::runtime::Error e, const std::string& what,
              MissingCapability* missing = nullptr);

// The file's device type values, whatever ExecuTorch read (an unknown one stays unknown).
Device from_et(const ::executorch::runtime::etensor::Device& d);
::executorch::runtime::etensor::DeviceType to_et_device_type(const Device& d);

}  // namespace devplan::harness::executorch_engine
