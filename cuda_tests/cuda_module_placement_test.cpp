// Module on real GPUs: after load_method, every planned buffer of the device fixture programs
// is where the program places it. A device buffer is device memory of the planned CUDA device
// (cudaPointerGetAttributes, first and last byte); a CPU buffer is host memory; a zero-size
// buffer is no memory at all. Loading leaves the caller's current device as it was.
#include <fixtures/generator/fixture_programs.h>
#include <gtest/gtest.h>
#include <runtime_ext/cuda/cuda_registration.h>

#include <string>
#include <vector>

#include "module_gpu_test.h"

namespace devplan::cuda_testing {
namespace {

struct ExpectedBuffer {
  uint64_t size;
  Device device;
};

// True when cudaPointerGetAttributes reports host memory (unregistered or page-locked).
bool is_host_memory(const void* ptr) {
  const std::string what = describe_pointer(ptr);
  return what == "unregistered host memory" || what == "page-locked host memory";
}

// Checks every buffer of `memory` against `expected`: size, device and where its bytes live.
void expect_layout(const PlannedMemory& memory, const std::vector<ExpectedBuffer>& expected) {
  ASSERT_EQ(memory.num_buffers(), expected.size());
  for (size_t b = 0; b < expected.size(); ++b) {
    SCOPED_TRACE("buffer " + std::to_string(b) + " (" + std::to_string(expected[b].size) +
                 " bytes on " + expected[b].device.to_string() + ")");
    const Span<uint8_t> span = memory.buffer(b);
    EXPECT_EQ(memory.device(b), expected[b].device);
    EXPECT_EQ(span.size(), expected[b].size);
    if (expected[b].size == 0) {
      EXPECT_EQ(span.data(), nullptr);
      continue;
    }
    ASSERT_NE(span.data(), nullptr);
    const uint8_t* last = span.data() + span.size() - 1;
    if (expected[b].device.is_cpu()) {
      EXPECT_TRUE(is_host_memory(span.data())) << describe_pointer(span.data());
      EXPECT_TRUE(is_host_memory(last)) << describe_pointer(last);
    } else {
      const std::string on_device =
          "device memory on cuda:" + std::to_string(expected[b].device.index);
      EXPECT_EQ(describe_pointer(span.data()), on_device);
      EXPECT_EQ(describe_pointer(last), on_device);
    }
  }
}

class CudaModulePlacementTest : public ModuleGpuTest {
 protected:
  // Loads `method` of `program` with the current device set to the last device (so that with
  // several GPUs a placement that followed the current device would show), checks the layout
  // and that the current device did not move, and leaves the method loaded.
  void load_and_expect(Module& module, const std::string& method,
                       const std::vector<ExpectedBuffer>& expected) {
    const int home = device_count() - 1;
    ScopedCurrentDevice scoped(home);
    const Error loaded = module.load_method(method);
    ASSERT_TRUE(loaded.ok()) << loaded;
    EXPECT_EQ(current_device(), home) << "load_method changed the current device";
    Result<const PlannedMemory*> memory = module.planned_memory(method);
    ASSERT_TRUE(memory.ok()) << memory.error();
    ASSERT_NE(*memory, nullptr);
    expect_layout(**memory, expected);
  }
};

TEST_F(CudaModulePlacementTest, DeviceAddCuda0BuffersLandWherePlanned) {
  Module module(make_device_add_cuda0_program(), options());
  ASSERT_NO_FATAL_FAILURE(
      load_and_expect(module, "forward", {{32, Device::cpu()}, {48, Device::cuda(0)}}));
  EXPECT_EQ(counting_.allocate_calls(), 1u);
  EXPECT_EQ(counting_.live_allocations_on(0), 1u);
  EXPECT_EQ(counting_.live_bytes(), 48u);
  // The planned tensors point into their buffers: a_dev, b_dev, sum_dev at cuda:0 b1@0/16/32.
  Result<Method*> method = module.method("forward");
  ASSERT_TRUE(method.ok()) << method.error();
  const uint8_t* device_base = (*module.planned_memory("forward"))->buffer(1).data();
  for (size_t v : {2u, 3u, 4u}) {
    SCOPED_TRACE("value " + std::to_string(v));
    const Tensor& t = (*method)->value(v).tensor;
    EXPECT_EQ(t.device, Device::cuda(0));
    EXPECT_EQ(static_cast<const uint8_t*>(t.data), device_base + 16 * (v - 2));
    EXPECT_EQ(describe_pointer(t.data), "device memory on cuda:0");
  }
  ASSERT_TRUE(module.unload_method("forward").ok());
  EXPECT_EQ(counting_.live_allocations(), 0u);
  EXPECT_EQ(counting_.misuse_count(), 0u) << counting_.misuse_report();
}

TEST_F(CudaModulePlacementTest, MultiDeviceBuffersLandOnCuda0AndCuda1) {
  if (device_count() < 2) {
    GTEST_SKIP() << "multi_device places a buffer on cuda:1; this machine has 1 CUDA device "
                    "(MultiDeviceWithOneGpuFailsCleanlyNamingCuda1 covers that case)";
  }
  Module module(make_multi_device_program(), options());
  ASSERT_NO_FATAL_FAILURE(load_and_expect(
      module, "forward", {{32, Device::cpu()}, {48, Device::cuda(0)}, {48, Device::cuda(1)}}));
  EXPECT_EQ(counting_.allocate_calls(), 2u);
  EXPECT_EQ(counting_.live_allocations_on(0), 1u);
  EXPECT_EQ(counting_.live_allocations_on(1), 1u);
  // The cuda:1 tensors (sum_on_1, b1, sum1: values 6, 7, 8) are memory of device 1.
  Result<Method*> method = module.method("forward");
  ASSERT_TRUE(method.ok()) << method.error();
  for (size_t v : {6u, 7u, 8u}) {
    EXPECT_EQ(describe_pointer((*method)->value(v).tensor.data), "device memory on cuda:1")
        << "value " << v;
  }
  ASSERT_TRUE(module.unload_method("forward").ok());
  EXPECT_EQ(counting_.live_allocations(), 0u);
  EXPECT_EQ(counting_.misuse_count(), 0u) << counting_.misuse_report();
}

TEST_F(CudaModulePlacementTest, MultiDeviceWithOneGpuFailsCleanlyNamingCuda1) {
  if (device_count() != 1) {
    GTEST_SKIP() << "needs exactly 1 CUDA device (multi_device's cuda:1 buffer must be absent); "
                    "this machine has "
                 << device_count();
  }
  const std::vector<size_t> before = free_memory();
  {
    Module module(make_multi_device_program(), options());
    const Error loaded = module.load_method("forward");
    EXPECT_EQ(loaded.code(), ErrorCode::InvalidArgument);
    EXPECT_EQ(loaded.message(),
              "method 'forward': buffer 2 (48 bytes on cuda:1): allocating 48 bytes on cuda:1: "
              "CudaAllocator::allocate: invalid device cuda:1: 1 CUDA device is visible "
              "(cuda:0)");
    EXPECT_FALSE(module.is_method_loaded("forward"));
    EXPECT_EQ(module.planned_memory("forward").code(), ErrorCode::NotFound);
    // Buffer 1 (cuda:0) was allocated first and freed when the load unwound.
    EXPECT_EQ(counting_.allocate_calls(), 2u);
    EXPECT_EQ(counting_.successful_allocations(), 1u);
    EXPECT_EQ(counting_.frees(), 1u);
    EXPECT_EQ(counting_.live_allocations(), 0u);
    EXPECT_EQ(current_device(), 0);
  }
  EXPECT_EQ(counting_.live_allocations(), 0u);
  EXPECT_EQ(counting_.misuse_count(), 0u) << counting_.misuse_report();
  EXPECT_TRUE(free_memory_near(before));
}

TEST_F(CudaModulePlacementTest, TwoMethodsEachMethodsBuffersLandWherePlanned) {
  Module module(make_two_methods_program(), options());
  ASSERT_NO_FATAL_FAILURE(load_and_expect(module, "cpu_forward", {{48, Device::cpu()}}));
  EXPECT_EQ(counting_.allocate_calls(), 0u) << "a CPU-only method called the device allocator";
  ASSERT_NO_FATAL_FAILURE(
      load_and_expect(module, "device_forward", {{32, Device::cpu()}, {48, Device::cuda(0)}}));
  EXPECT_EQ(counting_.allocate_calls(), 1u);
  // Each method has buffers of its own.
  EXPECT_NE((*module.planned_memory("cpu_forward"))->buffer(0).data(),
            (*module.planned_memory("device_forward"))->buffer(0).data());
  ASSERT_TRUE(module.unload_method("device_forward").ok());
  EXPECT_EQ(counting_.live_allocations(), 0u);
  // The CPU method is untouched by unloading the other.
  ASSERT_TRUE(module.is_method_loaded("cpu_forward"));
  expect_layout(**module.planned_memory("cpu_forward"), {{48, Device::cpu()}});
}

TEST_F(CudaModulePlacementTest, DeviceOnlyBufferLandsOnCuda0) {
  Module module(make_device_only_program(), options());
  ASSERT_NO_FATAL_FAILURE(load_and_expect(module, "forward", {{48, Device::cuda(0)}}));
  EXPECT_EQ(counting_.allocate_calls(), 1u);
  // The runtime-bound inputs are host memory owned by the method.
  Result<Method*> method = module.method("forward");
  ASSERT_TRUE(method.ok()) << method.error();
  for (size_t v : {0u, 1u}) {
    EXPECT_TRUE(is_host_memory((*method)->value(v).tensor.data))
        << "value " << v << ": " << describe_pointer((*method)->value(v).tensor.data);
  }
}

TEST_F(CudaModulePlacementTest, ZeroSizeCuda1BufferAllocatesNothing) {
  // The zero-size cuda:1 buffer makes no allocator call, so it loads also with one GPU.
  Module module(make_zero_size_device_buffer_program(), options());
  ASSERT_NO_FATAL_FAILURE(load_and_expect(
      module, "forward", {{32, Device::cpu()}, {48, Device::cuda(0)}, {0, Device::cuda(1)}}));
  EXPECT_EQ(counting_.allocate_calls(), 1u);
  EXPECT_EQ(counting_.live_allocations_on(0), 1u);
  EXPECT_EQ(counting_.live_allocations_on(1), 0u);
  EXPECT_EQ((*module.planned_memory("forward"))->num_device_allocations(), 1u);
}

TEST_F(CudaModulePlacementTest, ProductionRegistrationsPlaceBuffersToo) {
  // register_cuda_allocator / register_cuda_backend, as a program's main() would call them,
  // here on local registries.
  DeviceAllocatorRegistry allocators;
  BackendRegistry backends;
  ASSERT_TRUE(register_cuda_allocator(allocators).ok());
  ASSERT_TRUE(register_cuda_backend(backends).ok());
  ModuleOptions module_options;
  module_options.runtime.allocators = &allocators;
  module_options.runtime.backends = &backends;
  const size_t errors_before = process_cuda_allocator().deallocation_errors();
  {
    Module module(make_device_add_cuda0_program(), module_options);
    ASSERT_NO_FATAL_FAILURE(
        load_and_expect(module, "forward", {{32, Device::cpu()}, {48, Device::cuda(0)}}));
  }
  EXPECT_EQ(process_cuda_allocator().deallocation_errors(), errors_before)
      << process_cuda_allocator().last_deallocation_error();
  EXPECT_EQ(counting_.allocate_calls(), 0u);
}

}  // namespace
}  // namespace devplan::cuda_testing
