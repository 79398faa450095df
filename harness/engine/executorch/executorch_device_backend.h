// ExecutorchDeviceBackend: devplan's device backend for ExecuTorch's own runtime, registered in
// its backend table as "DevplanDeviceBackend" (SimulatedDeviceBackend::kDevplanBackendId), the
// id our exporter partitioner writes (scripts/export_executorch_fixtures.py), whose processed
// bytes name the op ("add" or "mul"), and as "DeviceAddBackend", the id of the programs devplan
// generates (fixtures, fuzz cases, plan), which always adds. A call's arguments are (a, b, out),
// tensors on one device. It runs the call exactly as runtime_ext's SimulatedDeviceBackend does
// (run_simulated_elementwise): the operands are staged through the installed devplan
// allocator's copies, so placement, copies and cleanup are all seen by the tracking allocator.
#pragma once

namespace devplan::harness::executorch_bridge {

// Registers the backend with ExecuTorch (once; install() calls it).
void register_executorch_device_backend();

}  // namespace devplan::harness::executorch_bridge
