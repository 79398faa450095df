// Registering allocators with ExecuTorch's registry, safely, any number of times.
//
// ExecuTorch keeps one DeviceAllocatorRegistry per process. It has no unregister, and a second
// register_device_allocator() for a device type aborts the process, so a test that registers
// its allocator in SetUp() dies on the second test (or when a runner repeats suite set-up).
// Here devplan registers, at most once per device type per process, a router: an ExecuTorch
// DeviceAllocator that forwards every call to the allocator a live ScopedExecutorchAllocator
// installed. Scopes nest; the innermost live one wins; when a scope ends, the allocator that
// was installed before it is back (scopes may even end out of order).
//
//   TrackingExecutorchAllocator cuda;                 // tracking_executorch_allocator.h
//   ScopedExecutorchAllocator scoped(cuda);           // registers the CUDA router if needed
//   ASSERT_TRUE(scoped.status().ok()) << scoped.status().message();
//   Module module("model.pte");
//   module.load_method("forward");                    // allocates through `cuda`
//
// Allocations and copies go to the allocator installed now; a free goes to the allocator that
// returned the pointer, while its scope lasts (a Module made under an outer scope and destroyed
// under a nested one frees into the outer allocator). Once that scope has ended the free goes
// to whichever allocator is installed, which records it as an unknown free. When no scope is
// live, allocate() and copies fail with NotFound and deallocate() frees nothing; each such call
// is logged through ExecuTorch's log and counted (calls_without_allocator).
//
// A device type whose slot in ExecuTorch's registry already holds an allocator that is not
// devplan's router (registered by a backend's static initialiser, say) cannot be routed: the
// scope's status() is AlreadyRegistered and says so, and nothing is installed.
//
// Threading: scopes may be made and ended on any thread, but a scope must not end while a call
// routed to its allocator is still running on another thread (the call reads the installed
// allocator without a lock). An allocator must outlive every scope that installs it.
#pragma once

#include <cstdint>

#include <executorch_testing/executorch_compat.h>
#include <runtime_ext/core/error.h>

namespace devplan::executorch_testing {

// Makes sure devplan's router is ExecuTorch's allocator for `type` (registers it the first
// time). Errors: AlreadyRegistered when another allocator holds the slot; InvalidArgument for
// CPU (ExecuTorch never asks the registry for host memory) or a type out of the registry's range.
Error ensure_router_registered(EtDeviceType type);

// True when ExecuTorch's registry holds devplan's router for `type`.
bool router_registered(EtDeviceType type);

// The allocator the innermost live scope installed for `type`, or null.
et::DeviceAllocator* installed_allocator(EtDeviceType type);

// Calls the router for `type` took with no allocator installed (allocate, deallocate, copies).
uint64_t calls_without_allocator(EtDeviceType type);

class ScopedExecutorchAllocator {
 public:
  // Installs `allocator` for allocator.device_type() until this scope ends.
  explicit ScopedExecutorchAllocator(et::DeviceAllocator& allocator);
  ~ScopedExecutorchAllocator();
  ScopedExecutorchAllocator(const ScopedExecutorchAllocator&) = delete;
  ScopedExecutorchAllocator& operator=(const ScopedExecutorchAllocator&) = delete;

  // Ok when the allocator is installed; else why not (ensure_router_registered's error).
  const Error& status() const { return status_; }

 private:
  et::DeviceAllocator* allocator_;
  EtDeviceType type_;
  Error status_;
};

}  // namespace devplan::executorch_testing
