#include <runtime_ext/cuda/cuda_registration.h>
#include <runtime_ext/cuda/real_cuda_runtime.h>

namespace devplan {

CudaAllocator& process_cuda_allocator() {
  static CudaAllocator* const allocator = new CudaAllocator(real_cuda_runtime());
  return *allocator;
}

Error register_cuda_allocator() {
  return register_cuda_allocator(DeviceAllocatorRegistry::global());
}

Error register_cuda_allocator(DeviceAllocatorRegistry& registry) {
  return registry.register_allocator(&process_cuda_allocator())
      .with_context("register_cuda_allocator");
}

}  // namespace devplan
