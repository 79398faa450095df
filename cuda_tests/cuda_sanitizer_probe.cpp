// cuda_sanitizer_probe: a small, known-clean CUDA program (allocate, copy, one kernel, free),
// used by scripts/cuda-check.sh to tell whether compute-sanitizer can run on this machine at
// all before trusting what it says about the test binaries.
//
// Exit status: 0 when everything worked, 77 when there is no usable CUDA device, 1 otherwise.
#include <cuda_runtime_api.h>
#include <runtime_ext/cuda/cuda_allocator.h>
#include <runtime_ext/cuda/cuda_device_count.h>
#include <runtime_ext/cuda/cuda_elementwise_add.h>
#include <runtime_ext/cuda/real_cuda_runtime.h>

#include <cstdio>
#include <vector>

int main() {
  using namespace devplan;
  const CudaDeviceCount devices = cuda_device_count();
  if (!devices.ok() || devices.count < 1) {
    std::printf("cuda_sanitizer_probe: no usable CUDA device: %s\n", devices.describe().c_str());
    return 77;
  }
  constexpr size_t kCount = 4096;
  CudaAllocator allocator(real_cuda_runtime());
  std::vector<float> a(kCount, 1.5f), b(kCount, 2.0f), out(kCount, 0.0f);
  void* d[3] = {nullptr, nullptr, nullptr};
  Error error;
  for (void*& p : d) {
    Result<void*> r = allocator.allocate(kCount * sizeof(float), 0);
    if (!r.ok()) {
      error = r.error();
      break;
    }
    p = *r;
  }
  if (error.ok()) error = allocator.copy_host_to_device(d[0], a.data(), kCount * sizeof(float), 0);
  if (error.ok()) error = allocator.copy_host_to_device(d[1], b.data(), kCount * sizeof(float), 0);
  if (error.ok()) error = cuda_elementwise_add(d[0], d[1], d[2], kCount, ScalarType::Float, 0);
  if (error.ok())
    error = allocator.copy_device_to_host(out.data(), d[2], kCount * sizeof(float), 0);
  for (void* p : d) allocator.deallocate(p, 0);  // nullptr is a no-op
  if (!error.ok()) {
    std::printf("cuda_sanitizer_probe: %s\n", error.to_string().c_str());
    return 1;
  }
  for (float value : out) {
    if (value != 3.5f) {
      std::printf("cuda_sanitizer_probe: wrong sum %f\n", static_cast<double>(value));
      return 1;
    }
  }
  if (allocator.deallocation_errors() != 0) {
    std::printf("cuda_sanitizer_probe: %s\n",
                allocator.last_deallocation_error().to_string().c_str());
    return 1;
  }
  // compute-sanitizer reports leaks when the context is destroyed.
  if (cudaDeviceReset() != cudaSuccess) {
    std::printf("cuda_sanitizer_probe: cudaDeviceReset failed\n");
    return 1;
  }
  std::printf("cuda_sanitizer_probe: ok on %s\n", devices.describe().c_str());
  return 0;
}
