// devplan's hooks into ExecuTorch's process-wide state. ExecuTorch keeps one allocator registry
// per process, aborts on a second registration for a device type, and logs through its platform
// layer (PAL). So, once per process:
//   - executorch_testing's router is registered for CUDA (executorch_allocator_registration.h,
//     the same registration ExecuTorch developers' tests use); while a ScopedBridgeTarget is
//     live, it routes to an adaptor over the devplan allocator the harness installed, which
//     labels each allocation with its owner ("forward/buffer 1") by matching the planned sizes
//     of the method being loaded;
//   - the PAL's log hook keeps ExecuTorch's error lines, so errors carry its own words;
//   - DevplanDeviceBackend (ExecutorchDeviceBackend) is registered;
//   - placeholder backends are registered on demand for delegate ids nobody provides.
//
// Threading: one ExecuTorch session at a time per process (the installed target and the
// expected owners are process-wide); the harness runs its sessions sequentially.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <mocks/simulated_device_backend.h>
#include <runtime_ext/core/device.h>
#include <runtime_ext/core/device_allocator.h>
#include <runtime_ext/core/result.h>

namespace devplan::executorch_testing {
class ScopedExecutorchAllocator;
}  // namespace devplan::executorch_testing

namespace devplan::harness::executorch_bridge {

// Registers executorch_testing's CUDA router, the log hook and DevplanDeviceBackend (once).
void install();

// Installs `target` as the allocator the CUDA forwarder uses, and `on_device` as how devplan's
// device backends compute (SimulatedDeviceBackend::DeviceElementwise; may be null or empty), for
// this object's lifetime.
class ScopedBridgeTarget {
 public:
  explicit ScopedBridgeTarget(DeviceAllocator* target,
                              const SimulatedDeviceBackend::DeviceElementwise* on_device = nullptr);
  ~ScopedBridgeTarget();
  ScopedBridgeTarget(const ScopedBridgeTarget&) = delete;
  ScopedBridgeTarget& operator=(const ScopedBridgeTarget&) = delete;

 private:
  DeviceAllocator* previous_;
  const SimulatedDeviceBackend::DeviceElementwise* previous_on_device_;
  std::unique_ptr<executorch_testing::ScopedExecutorchAllocator> routed_;
};

// A planned device buffer the next allocations may be for.
struct ExpectedBuffer {
  std::string owner;  // "forward/buffer 1"
  uint64_t size = 0;
  DeviceIndex device_index = 0;
  bool claimed = false;
};

// Sets the buffers the next allocations are matched against: an allocation takes the owner of
// the first unclaimed buffer of its size and device index ("<method>/?" when none matches).
void expect_buffers(std::vector<ExpectedBuffer> buffers);
// The buffers with whether each was claimed by a successful allocation; clears the list.
std::vector<ExpectedBuffer> take_expected_buffers();

// Makes sure a backend named `id` exists: when ExecuTorch has none, registers a placeholder
// that initialises only while placeholders are enabled and never executes (both errors name
// it). Error when ExecuTorch's backend table is full.
Error ensure_placeholder_backend(const std::string& id);
// True when backend `id` is one of devplan's placeholders, not a real backend.
bool is_placeholder_backend(const std::string& id);
// Enables placeholders for this object's lifetime (simulate's load path).
class ScopedPlaceholders {
 public:
  ScopedPlaceholders();
  ~ScopedPlaceholders();
};

}  // namespace devplan::harness::executorch_bridge
