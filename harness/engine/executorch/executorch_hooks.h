// The process-wide state that devplan's hooks into ExecuTorch share: the devplan allocator and
// device compute that ScopedBridgeTarget installs (executorch_bridge.h), and the error log that
// ExecuTorch's log lines and devplan's own backends write to.
#pragma once

#include <string>

#include <mocks/simulated_device_backend.h>
#include <runtime_ext/core/device_allocator.h>

namespace devplan::harness::executorch_bridge {

// The installed allocator (null when none); exchange_target installs another and returns it.
DeviceAllocator* current_target();
DeviceAllocator* exchange_target(DeviceAllocator* target);

// The device compute installed with it (null when none).
const SimulatedDeviceBackend::DeviceElementwise* current_device_elementwise();
const SimulatedDeviceBackend::DeviceElementwise* exchange_device_elementwise(
    const SimulatedDeviceBackend::DeviceElementwise* on_device);

// Adds a line to the error log, once however often it comes.
void record_error(const std::string& line);
// ExecuTorch's error and fatal log lines since the last call, joined by "; " (then cleared).
std::string take_error_log();

}  // namespace devplan::harness::executorch_bridge
