// register_cuda_allocator: installs the process's CudaAllocator (over the real CUDA runtime) as
// the DeviceAllocator for DeviceType::CUDA. Part of devplan::cuda (builds with CUDA only).
//
//   int main() {
//     Error err = register_cuda_allocator();
//     if (!err.ok()) { print(err); return 1; }   // AlreadyRegistered if someone else did
//     ...  // DeviceMemoryBuffer::create(n, DeviceType::CUDA, 1) now uses cudaMalloc on cuda:1
//   }
//
// Registering needs no driver or GPU; a missing device shows as an error at the first
// allocation instead. Thread-safe (the registry's slot is atomic).
#pragma once

#include <runtime_ext/core/device_allocator_registry.h>
#include <runtime_ext/core/error.h>
#include <runtime_ext/cuda/cuda_allocator.h>

namespace devplan {

// The process-lifetime CudaAllocator over real_cuda_runtime(). Never destroyed, so buffers
// freed during static destruction still find it.
CudaAllocator& process_cuda_allocator();

// Registers process_cuda_allocator() in the global registry. AlreadyRegistered (with the
// message "register_cuda_allocator: a device allocator is already registered for cuda") when a
// CUDA allocator, this one included, is already there; the registered one stays.
Error register_cuda_allocator();

// The same for `registry`.
Error register_cuda_allocator(DeviceAllocatorRegistry& registry);

}  // namespace devplan
