// Simulation: the load path run against simulated devices, as `devplan simulate` does it.
//
//   SimulationOptions options;
//   options.fail_alloc = 2;                         // fail the 2nd device allocation
//   Result<SimulationResult> r = simulate_program(bytes, options);
//   r->has_findings();                              // a leak or misuse was recorded
//
// Every selected method is loaded through a Module whose CUDA allocator is a fresh
// TrackingDeviceAllocator (unbacked by default: see SimulationOptions::backing; its device
// delegates run on the SimulatedDeviceBackend), then unloaded, then the Module is destroyed; the
// result holds each method's outcome, the full allocation ledger, failed allocation attempts, leaks
// and misuse.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <harness/engine/device_environment.h>
#include <harness/engine/engine.h>
#include <harness/services/memory_ceilings.h>
#include <mocks/recording_device_allocator.h>
#include <mocks/tracking_device_allocator.h>
#include <runtime_ext/module/module.h>

namespace devplan::harness {

struct SimulationOptions {
  std::vector<std::string> methods;                     // empty: every method
  std::vector<std::pair<uint32_t, Device>> placements;  // --place INDEX=DEVICE
  uint64_t fail_alloc = 0;                              // --fail-alloc N (0: none)
  std::vector<std::pair<Device, uint64_t>> capacities;  // --capacity DEVICE=BYTES
  UnloadBug unload_bug = UnloadBug::None;               // --inject-bug
  DeviceSetup device;                                   // --device, --device-map
  RuntimeKind runtime = RuntimeKind::Devplan;           // --runtime devplan|executorch
  // --backing: simulated device blocks are address ranges with no host memory (Unbacked, the
  // default: a load-and-unload run reads no device byte; the few copies a load makes, such as
  // initial values, back just the pages they touch) or host memory (Host).
  DeviceBacking backing = DeviceBacking::Unbacked;
  MemoryCeilings ceilings;              // --max-device-allocation, --max-host-buffer
  std::vector<std::string> data_paths;  // --data: the program's external data files (.ptd)
};

struct MethodOutcome {
  std::string name;
  Error status;  // Ok, or why load_method failed
  std::vector<BufferOutcome> buffers;
  // What the engine lacks for it ("backend CoreMLBackend", "kernel aten::sin.out"): a placeholder
  // stood in on the load path; executing it would fail.
  std::vector<std::string> stand_ins;
};

struct SimulationResult {
  RuntimeKind runtime = RuntimeKind::Devplan;
  std::string device_memory;  // "unbacked" or "host" (simulated devices), "cuda" (real ones)
  std::string device_map;     // --device-map as DeviceMap::describe() says it; "" without one
  std::vector<MethodOutcome> methods;
  std::vector<AllocationRecord> allocations;  // successful device allocations, in order
  std::vector<FailedAllocation> failed_allocations;
  std::vector<AllocationRecord> leaks;  // still live after the Module was destroyed
  std::vector<std::string> leak_lines;  // "#7 cuda:0 48 B align 16 owner forward/buffer 1"
  std::vector<MisuseRecord> misuse;
  std::vector<DeviceAllocationStats> stats;  // per device index that saw any allocation
  std::vector<DeviceIndex> stats_devices;    // the index of each stats entry
  std::vector<AllocationEvent> events;       // allocations and frees, in order

  bool has_findings() const { return !leaks.empty() || !misuse.empty(); }
  bool all_loaded() const {
    for (const MethodOutcome& m : methods) {
      if (!m.status.ok()) return false;
    }
    return true;
  }
};

// Rewrites `program` with each (buffer, device) placement applied to every method that has that
// buffer: the buffer and the tensors planned in it move to the device. InvalidArgument naming
// the buffer when no selected method has it.
Result<std::vector<uint8_t>> apply_placements(
    const Program& program, const std::vector<std::string>& methods,
    const std::vector<std::pair<uint32_t, Device>>& placements);

// Runs the simulation. Errors only for a program that does not load at all (its error), an
// unknown method name (NotFound) or a bad option (InvalidArgument); a method that fails to
// load is an outcome, not an error. `program_error` (optional) is set when the error is the
// program's (it does not read or open), not an option's.
Result<SimulationResult> simulate_program(const ProgramImage& program,
                                          const SimulationOptions& options,
                                          bool* program_error = nullptr);

}  // namespace devplan::harness
