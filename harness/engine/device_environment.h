// DeviceEnvironment: the devices a harness command runs against. Both kinds are one stack: a
// TrackingDeviceAllocator (ledger, misuse checks, fault injection, capacities, statistics)
// over the device memory, with a RecordingDeviceAllocator in front, so the allocation sequence,
// the ledger, the leaks, the misuse and the report lines come out the same on either:
//
//   simulated (the default)  host memory stands in for cuda:0..127;
//   cuda                     real memory from CudaAllocator (cudaMalloc), through an
//                            IndexMappingDeviceAllocator when --device-map sends a planned index
//                            to another GPU; available when devplan was built with CUDA and a GPU
//                            is present.
//
// The device backends (the fixtures' DeviceAddBackend and the exporter's DevplanDeviceBackend)
// run in both engines: on a GPU as CUDA kernels on the memory the plan placed
// (cuda_elementwise_binary, the same bits as the host kernel); on simulated devices, and for
// what the kernels do not handle (the host kernel's errors), staged through the registered
// allocator's copies and computed on the host. With an UnloadBug other than None
// (`--inject-bug`), an UnloadBugAllocator sits in front of the recorder, so every engine frees
// wrongly in the same way and the recorder sees each call.
//
//   DeviceSetup setup{DeviceKind::Cuda};
//   DEVPLAN_RETURN_IF_ERROR(setup.map.add(1, 0));          // --device-map cuda:1=cuda:0
//   Result<std::unique_ptr<DeviceEnvironment>> env = DeviceEnvironment::create(setup);
//   if (!env.ok()) ...   // NotSupported: built without CUDA, or no usable GPU (the CUDA error)
//   Module module(file, (*env)->module_options());
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <mocks/compute_bug.h>
#include <mocks/index_mapping_device_allocator.h>
#include <mocks/recording_device_allocator.h>
#include <mocks/simulated_device_backend.h>
#include <mocks/tracking_device_allocator.h>
#include <mocks/unload_bug_allocator.h>
#include <runtime_ext/module/module.h>

namespace devplan::harness {

enum class DeviceKind : int { Simulated, Cuda };

// "simulated" or "cuda"; InvalidArgument otherwise.
Result<DeviceKind> parse_device_kind(const std::string& text);

// --device-map: planned CUDA indices sent to other CUDA indices of the machine.
struct DeviceMap {
  std::vector<std::pair<DeviceIndex, DeviceIndex>> entries;  // (planned, present), in order given

  bool empty() const { return entries.empty(); }
  // Adds planned -> present. InvalidArgument for a negative index or a planned index mapped
  // already to another one.
  Error add(DeviceIndex planned, DeviceIndex present);
  // "cuda:1=cuda:0, cuda:2=cuda:0"; "" when empty.
  std::string describe() const;
};

// One --device-map value, "cuda:P=cuda:Q": InvalidArgument naming the text otherwise.
Result<std::pair<DeviceIndex, DeviceIndex>> parse_device_map_entry(const std::string& text);

// What --device and --device-map chose.
struct DeviceSetup {
  DeviceKind kind = DeviceKind::Simulated;
  DeviceMap map;  // only with DeviceKind::Cuda
  // DeviceKind::Cuda's memory: nullptr for the process's CudaAllocator; tests give a
  // CudaAllocator over the CUDA runtime seam's fake, so the whole CUDA path runs without a GPU.
  // Not owned; it must outlive the environment.
  DeviceAllocator* memory = nullptr;

  // "simulated", "cuda" or "cuda (device map cuda:1=cuda:0)": the `devices:` line of reports.
  std::string describe() const;
  // The options that choose these devices again: "" (simulated), or " --device cuda" with a
  // " --device-map PLANNED=PRESENT" per entry (replay and accept commands).
  std::string arguments() const;
};

// --device cuda's memory: setup.memory or the process's CudaAllocator, behind the device map.
// DeviceEnvironment stands on one; callers that stack their own allocators (the fuzz cases, one
// stack per check) use one directly.
class RealDeviceMemory {
 public:
  // NotSupported where devplan was built without CUDA or no GPU is usable; InvalidArgument for a
  // map that names an absent GPU. With `wrap_absent` (and the process's GPUs), every index the
  // map does not name and no GPU has goes to index % (GPUs present), added to map().
  static Result<std::unique_ptr<RealDeviceMemory>> open(const DeviceSetup& setup,
                                                        bool wrap_absent = false);

  DeviceAllocator* allocator() { return top_; }
  // The GPU a planned index's memory is on.
  DeviceIndex target(DeviceIndex planned) const {
    return mapping_ ? mapping_->target(planned) : planned;
  }
  // True on the process's GPUs (not a test's allocator): CUDA kernels can run on the memory.
  bool runs_kernels() const { return runs_kernels_; }
  // Every mapping in effect.
  const DeviceMap& map() const { return map_; }
  // "cuda", "cuda (device map cuda:1=cuda:0)", "cuda (device map ...; cuda:2 and up run on
  // cuda:(index % 2))".
  std::string describe() const;

 private:
  RealDeviceMemory() = default;

  DeviceMap map_;
  DeviceMap given_;  // the map the setup named
  bool runs_kernels_ = false;
  int wrapped_from_ = 0;  // with wrap_absent: the GPUs present (the first index wrapped)
  std::unique_ptr<IndexMappingDeviceAllocator> mapping_;  // only with a map
  DeviceAllocator* top_ = nullptr;
};

// Whether `setup`'s devices can be opened, asked in a child process for the GPU: CUDA, once
// used in a process, does not survive the fork of the children that isolate ExecuTorch, so a
// command checks first without touching CUDA itself. RealDeviceMemory::open's error otherwise.
Error check_devices(const DeviceSetup& setup);

class DeviceEnvironment {
 public:
  // `compute_bug` (probe's --inject-bug) makes both engines' device backends compute wrongly.
  static Result<std::unique_ptr<DeviceEnvironment>> create(
      const DeviceSetup& setup, UnloadBug bug = UnloadBug::None,
      ComputeBug compute_bug = ComputeBug::None);
  static Result<std::unique_ptr<DeviceEnvironment>> create(
      DeviceKind kind, UnloadBug bug = UnloadBug::None, ComputeBug compute_bug = ComputeBug::None) {
    return create(DeviceSetup{kind, {}, nullptr}, bug, compute_bug);
  }

  DeviceKind kind() const { return kind_; }
  // The device map in use (empty on simulated devices).
  const DeviceMap& device_map() const;
  // Registries for ModuleOptions::runtime, set to these devices.
  ModuleOptions module_options() const;
  // The allocator under every engine, simulated or over real memory: fault injection,
  // capacities, ledger, misuse.
  TrackingDeviceAllocator* tracking() { return tracking_.get(); }
  const TrackingDeviceAllocator* tracking() const { return tracking_.get(); }
  // The CUDA allocator every engine allocates through (the registered one: the recorder in
  // front of the devices, behind the injected bug if any).
  DeviceAllocator* device_allocator() { return registered_; }
  // The registry holding it (ModuleOptions::runtime.allocators).
  const DeviceAllocatorRegistry& allocators() const { return allocators_; }
  // "unbacked" or "host" (simulated devices, as set_backing chose) or "cuda".
  std::string device_memory() const;
  // How the device backends compute on these devices (empty: staged on the host); both engines'
  // backends use it.
  const SimulatedDeviceBackend::DeviceElementwise& device_elementwise() const { return on_device_; }

  // Before each execution: an injected compute bug forgets the previous one's calls.
  void start_execution() {
    if (compute_bug_) compute_bug_->start_execution();
  }

  std::vector<AllocationEvent> events() const { return recording_->events(); }
  // Successful allocations in order, each live or freed.
  std::vector<AllocationRecord> ledger() const { return tracking_->ledger(); }
  std::vector<AllocationRecord> leaks() const { return tracking_->live_allocations(); }
  std::vector<std::string> leak_lines() const { return tracking_->leak_report_lines(); }
  std::vector<std::string> misuse_lines() const { return tracking_->misuse_report_lines(); }

 private:
  DeviceEnvironment() = default;
  // Stacks the recorder, the bug and the backends over tracking_.
  Error finish(UnloadBug bug, ComputeBug compute_bug);

  DeviceKind kind_ = DeviceKind::Simulated;
  std::unique_ptr<RealDeviceMemory> memory_;  // real devices only
  std::unique_ptr<TrackingDeviceAllocator> tracking_;
  SimulatedDeviceBackend::DeviceElementwise on_device_;
  std::unique_ptr<ComputeBugInjector> compute_bug_;          // only with an injected compute bug
  std::unique_ptr<SimulatedDeviceBackend> add_backend_;      // kAddBackendId
  std::unique_ptr<SimulatedDeviceBackend> devplan_backend_;  // kDevplanBackendId
  std::unique_ptr<RecordingDeviceAllocator> recording_;
  std::unique_ptr<UnloadBugAllocator> unload_bug_;  // only with an injected bug
  DeviceAllocator* registered_ = nullptr;
  DeviceAllocatorRegistry allocators_;
  BackendRegistry backends_;
};

}  // namespace devplan::harness
