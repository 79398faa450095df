// DeviceEnvironment: the devices a harness command runs against. `simulated` (the default) is a
// TrackingDeviceAllocator for CUDA (host-backed, with its ledger, misuse checks and faults) and
// the SimulatedDeviceBackend; `cuda` is the real CudaAllocator and CUDA add backend, available
// when devplan was built with CUDA and a GPU is present. Either way a RecordingDeviceAllocator
// sits in front, so the allocation sequence, the ledger and the leaks come out the same. With
// an UnloadBug other than None (`--inject-bug`), an UnloadBugAllocator sits in front of the
// recorder, so every engine frees wrongly in the same way and the recorder sees each call.
//
//   Result<std::unique_ptr<DeviceEnvironment>> env = DeviceEnvironment::create(DeviceKind::Cuda);
//   if (!env.ok()) ...   // NotSupported: built without CUDA, or no usable GPU (the CUDA error)
//   Module module(file, (*env)->module_options());
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <mocks/recording_device_allocator.h>
#include <mocks/simulated_device_backend.h>
#include <mocks/tracking_device_allocator.h>
#include <mocks/unload_bug_allocator.h>
#include <runtime_ext/module/module.h>

namespace devplan::harness {

enum class DeviceKind : int { Simulated, Cuda };

// "simulated" or "cuda"; InvalidArgument otherwise.
Result<DeviceKind> parse_device_kind(const std::string& text);

class DeviceEnvironment {
 public:
  static Result<std::unique_ptr<DeviceEnvironment>> create(DeviceKind kind,
                                                           UnloadBug bug = UnloadBug::None);

  DeviceKind kind() const { return kind_; }
  // Registries for ModuleOptions::runtime, set to these devices.
  ModuleOptions module_options() const;
  // The simulated device's allocator (fault injection, capacities); null for real CUDA.
  TrackingDeviceAllocator* tracking() { return tracking_.get(); }
  // The CUDA allocator every engine allocates through (the registered one: the recorder in
  // front of the devices, behind the injected bug if any).
  DeviceAllocator* device_allocator() { return registered_; }
  // The registry holding it (ModuleOptions::runtime.allocators).
  const DeviceAllocatorRegistry& allocators() const { return allocators_; }

  std::vector<AllocationEvent> events() const { return recording_->events(); }
  // Successful allocations in order, each live or freed.
  std::vector<AllocationRecord> ledger() const;
  std::vector<AllocationRecord> leaks() const;
  std::vector<std::string> leak_lines() const;
  // Misuse lines: the tracking allocator's, or frees of unknown pointers on real devices.
  std::vector<std::string> misuse_lines() const;

 private:
  DeviceEnvironment() = default;

  DeviceKind kind_ = DeviceKind::Simulated;
  std::unique_ptr<TrackingDeviceAllocator> tracking_;
  std::unique_ptr<SimulatedDeviceBackend> simulated_backend_;
  std::unique_ptr<SimulatedDeviceBackend> devplan_backend_;  // kDevplanBackendId
  std::unique_ptr<RecordingDeviceAllocator> recording_;
  std::unique_ptr<UnloadBugAllocator> unload_bug_;  // only with an injected bug
  DeviceAllocator* registered_ = nullptr;
  DeviceAllocatorRegistry allocators_;
  BackendRegistry backends_;
};

}  // namespace devplan::harness
