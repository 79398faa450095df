// ModuleGpuTest: the base fixture of the Module-level GPU tests. On top of CudaTest (which skips,
// with the CUDA error string, where no device is usable) it gives each test its own registries
// holding the real CUDA pieces, so nothing touches the global registries:
//
//   allocators_: CountingDeviceAllocator counting_ over CudaAllocator cuda_ (real_cuda_runtime)
//   backends_:   process_cuda_add_backend() as "DeviceAddBackend" (register_cuda_backend)
//
//   class PlacementTest : public ModuleGpuTest {};
//   TEST_F(PlacementTest, Lands) {
//     Module module(make_device_add_cuda0_program(), options());
//     ASSERT_TRUE(module.load_method("forward").ok());
//     ...
//     EXPECT_EQ(counting_.live_allocations(), 0u);
//   }
//
// Free device memory is compared with free_memory_near(): cudaMemGetInfo may move by the CUDA
// context's own bookkeeping (the driver's sub-allocation pools, lazily loaded kernels), so
// SetUp() allocates, copies and frees once on every device, each test first runs its work once
// as a warm-up, and a reading then only has to come back within kFreeMemoryTolerance. Under
// compute-sanitizer (whose own allocations move the readings) the comparison is skipped and the
// tool's leak check stands in for it.
//
// Also here: run_simulated(), which runs a program on the simulated device
// (TrackingDeviceAllocator + SimulatedDeviceBackend, in registries of its own) and returns the
// output bytes, the expectation the GPU runs are compared with.
#pragma once

#include <gtest/gtest.h>
#include <runtime_ext/cuda/cuda_add_backend.h>
#include <runtime_ext/cuda/cuda_allocator.h>
#include <runtime_ext/cuda/real_cuda_runtime.h>
#include <runtime_ext/module/module.h>
#include <runtime_ext/writer/program_builder.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "counting_device_allocator.h"
#include "cuda_test.h"

namespace devplan::cuda_testing {

constexpr size_t kMiB = size_t{1} << 20;

// How far a device's free memory may move across work that frees everything it allocated.
constexpr size_t kFreeMemoryTolerance = 2 * kMiB;

// A program whose method "forward" has several device buffers, some large enough for
// cudaMemGetInfo to see, and no instructions (an identity on one runtime-bound float [2, 2]
// tensor). Buffers, in order: cpu:0 64 B, cuda:0 64 MiB, cuda:0 48 B, then with two or more
// devices cuda:1 32 MiB and cuda:1 4096 B, then cpu:0 16 B.
std::vector<uint8_t> make_spread_buffers_program(int device_count);

// A float32 [2, 2] host tensor viewing `values` (4 floats, kept alive by the caller).
EValue host_float_2x2(std::vector<float>& values);

// The bytes of every output of `method` after `Method::copy_output_to_host`, in output order.
Result<std::vector<std::vector<uint8_t>>> copy_outputs_to_host(const Method& method);

// Runs `method_name` of `program` once on the simulated device with `inputs` and returns its
// outputs' bytes. Also fails the calling test if the simulation leaked or misused memory.
Result<std::vector<std::vector<uint8_t>>> run_simulated(const std::vector<uint8_t>& program,
                                                        const std::string& method_name,
                                                        const std::vector<EValue>& inputs);

// What cudaPointerGetAttributes says about `ptr`: "device memory on cuda:1", "unregistered host
// memory", "page-locked host memory", "managed memory on cuda:0", or the failed call's text.
std::string describe_pointer(const void* ptr);

// Makes `device` the calling thread's current device for a scope, then restores the previous
// one (failing the test if either cudaSetDevice fails).
class ScopedCurrentDevice {
 public:
  explicit ScopedCurrentDevice(int device);
  ~ScopedCurrentDevice();
  ScopedCurrentDevice(const ScopedCurrentDevice&) = delete;
  ScopedCurrentDevice& operator=(const ScopedCurrentDevice&) = delete;

 private:
  int previous_;
};

class ModuleGpuTest : public CudaTest {
 protected:
  void SetUp() override;

  // Options whose registries are allocators_ and backends_.
  ModuleOptions options() const;

  // cudaMemGetInfo's free bytes of every device, in device order.
  std::vector<size_t> free_memory() const;
  // Ok-or-failure of every device's free memory being within kFreeMemoryTolerance of `before`
  // (always a success under compute-sanitizer).
  ::testing::AssertionResult free_memory_near(const std::vector<size_t>& before) const;

  // process_cuda_add_backend()'s successful executions so far.
  static uint64_t backend_executions();

  CudaAllocator cuda_{real_cuda_runtime()};
  CountingDeviceAllocator counting_{cuda_};
  DeviceAllocatorRegistry allocators_;
  BackendRegistry backends_;
};

}  // namespace devplan::cuda_testing
