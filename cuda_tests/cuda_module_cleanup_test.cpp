// Module on real GPUs: every byte a load allocated comes back, after unload_method, after the
// Module's destruction, and after a load that fails at any one of its device allocations
// (fault injected through CountingDeviceAllocator for every k). "Comes back" means both: the
// adaptor counts no live allocation, and cudaMemGetInfo's free memory of every device returns
// to its value before the load (within kFreeMemoryTolerance, after a warm-up round).
#include <fixtures/generator/fixture_programs.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "module_gpu_test.h"

namespace devplan::cuda_testing {
namespace {

// A program, the methods to load, and the device allocations loading all of them makes.
struct LoadCase {
  std::string name;
  std::vector<uint8_t> bytes;
  std::vector<std::string> methods;
  uint64_t device_allocations;
};

// One device allocation a method's load makes, in load order.
struct DeviceBufferInfo {
  size_t buffer;
  uint64_t size;
  Device device;
};

class CudaModuleCleanupTest : public ModuleGpuTest {
 protected:
  // The device fixture programs this machine can load, and the spread-buffers program.
  std::vector<LoadCase> cases() const {
    std::vector<LoadCase> all = {
        {"device_add_cuda0", make_device_add_cuda0_program(), {"forward"}, 1},
        {"two_methods", make_two_methods_program(), {"cpu_forward", "device_forward"}, 1},
        {"device_only", make_device_only_program(), {"forward"}, 1},
        {"zero_size_device_buffer", make_zero_size_device_buffer_program(), {"forward"}, 1},
        {"spread_buffers",
         make_spread_buffers_program(device_count()),
         {"forward"},
         device_count() >= 2 ? 4u : 2u},
    };
    if (device_count() >= 2) {
      all.push_back({"multi_device", make_multi_device_program(), {"forward"}, 2});
    }
    return all;
  }

  // The non-empty device buffers of `method`, in the order load_method allocates them.
  static std::vector<DeviceBufferInfo> device_buffers(const Module& module,
                                                      const std::string& method) {
    std::vector<DeviceBufferInfo> buffers;
    Result<const MethodPlan*> plan = module.program()->method_plan(method);
    EXPECT_TRUE(plan.ok()) << plan.error();
    if (!plan.ok()) return buffers;
    for (size_t b = 0; b < (*plan)->buffer_sizes.size(); ++b) {
      const Device device = (*plan)->buffer_devices[b];
      if (!device.is_cpu() && (*plan)->buffer_sizes[b] > 0) {
        buffers.push_back({b, (*plan)->buffer_sizes[b], device});
      }
    }
    return buffers;
  }

  static void load_all(Module& module, const LoadCase& c) {
    for (const std::string& method : c.methods) {
      const Error loaded = module.load_method(method);
      ASSERT_TRUE(loaded.ok()) << method << ": " << loaded;
    }
  }

  static void unload_all(Module& module, const LoadCase& c) {
    for (const std::string& method : c.methods) {
      const Error unloaded = module.unload_method(method);
      ASSERT_TRUE(unloaded.ok()) << method << ": " << unloaded;
    }
  }

  // With the spread-buffers program loaded, cuda:0 (and cuda:1) must show the large buffers:
  // proof that the free-memory readings can see what a leak would hold.
  void expect_large_buffers_visible(const LoadCase& c, const std::vector<size_t>& before) {
    if (c.name != "spread_buffers" || under_compute_sanitizer()) return;
    const std::vector<size_t> loaded = free_memory();
    EXPECT_LE(loaded[0] + 64 * kMiB, before[0]) << "cuda:0 does not show the 64 MiB buffer";
    if (device_count() >= 2) {
      EXPECT_LE(loaded[1] + 32 * kMiB, before[1]) << "cuda:1 does not show the 32 MiB buffer";
    }
  }
};

TEST_F(CudaModuleCleanupTest, UnloadMethodReturnsEveryByte) {
  for (const LoadCase& c : cases()) {
    SCOPED_TRACE(c.name);
    Module module(c.bytes, options());
    ASSERT_NO_FATAL_FAILURE(load_all(module, c));  // warm-up round
    ASSERT_NO_FATAL_FAILURE(unload_all(module, c));
    ASSERT_EQ(counting_.live_allocations(), 0u);
    const std::vector<size_t> before = free_memory();
    const uint64_t calls_before = counting_.allocate_calls();

    ASSERT_NO_FATAL_FAILURE(load_all(module, c));
    EXPECT_EQ(counting_.allocate_calls() - calls_before, c.device_allocations);
    EXPECT_EQ(counting_.live_allocations(), c.device_allocations);
    expect_large_buffers_visible(c, before);

    ASSERT_NO_FATAL_FAILURE(unload_all(module, c));
    for (const std::string& method : c.methods) EXPECT_FALSE(module.is_method_loaded(method));
    EXPECT_EQ(counting_.live_allocations(), 0u);
    EXPECT_TRUE(free_memory_near(before));
    // Unloading again is NotFound and frees nothing twice.
    EXPECT_EQ(module.unload_method(c.methods[0]).code(), ErrorCode::NotFound);
  }
  EXPECT_EQ(counting_.misuse_count(), 0u) << counting_.misuse_report();
  EXPECT_EQ(cuda_.deallocation_errors(), 0u) << cuda_.last_deallocation_error();
}

TEST_F(CudaModuleCleanupTest, ModuleDestructionReturnsEveryByte) {
  for (const LoadCase& c : cases()) {
    SCOPED_TRACE(c.name);
    {
      Module warm_up(c.bytes, options());
      ASSERT_NO_FATAL_FAILURE(load_all(warm_up, c));
    }
    ASSERT_EQ(counting_.live_allocations(), 0u);
    const std::vector<size_t> before = free_memory();
    {
      Module module(c.bytes, options());
      ASSERT_NO_FATAL_FAILURE(load_all(module, c));
      EXPECT_EQ(counting_.live_allocations(), c.device_allocations);
      expect_large_buffers_visible(c, before);
    }  // destroyed with its methods still loaded
    EXPECT_EQ(counting_.live_allocations(), 0u);
    EXPECT_TRUE(free_memory_near(before));
  }
  EXPECT_EQ(counting_.misuse_count(), 0u) << counting_.misuse_report();
  EXPECT_EQ(cuda_.deallocation_errors(), 0u) << cuda_.last_deallocation_error();
}

TEST_F(CudaModuleCleanupTest, LoadFailingAtEveryDeviceAllocationReturnsEveryByte) {
  const int home = device_count() - 1;
  ScopedCurrentDevice scoped(home);
  for (const LoadCase& c : cases()) {
    Module module(c.bytes, options());
    ASSERT_NO_FATAL_FAILURE(load_all(module, c));  // warm-up round
    ASSERT_NO_FATAL_FAILURE(unload_all(module, c));
    for (const std::string& method : c.methods) {
      const std::vector<DeviceBufferInfo> buffers = device_buffers(module, method);
      for (size_t k = 1; k <= buffers.size(); ++k) {
        SCOPED_TRACE(c.name + " " + method + ": allocation " + std::to_string(k) + " of " +
                     std::to_string(buffers.size()) + " fails");
        const DeviceBufferInfo& failing = buffers[k - 1];
        const std::vector<size_t> before = free_memory();
        const uint64_t calls_before = counting_.allocate_calls();
        const uint64_t successes_before = counting_.successful_allocations();
        counting_.fail_allocation_at(calls_before + k);

        const Error loaded = module.load_method(method);
        const std::string bytes_on =
            std::to_string(failing.size) + " bytes on " + failing.device.to_string();
        EXPECT_EQ(loaded.code(), ErrorCode::MemoryAllocationFailed);
        EXPECT_EQ(loaded.message(),
                  "method '" + method + "': buffer " + std::to_string(failing.buffer) + " (" +
                      bytes_on + "): allocating " + bytes_on +
                      ": CountingDeviceAllocator: injected failure of allocate call #" +
                      std::to_string(calls_before + k) + " (" + bytes_on + ")");
        EXPECT_FALSE(module.is_method_loaded(method));
        EXPECT_EQ(module.planned_memory(method).code(), ErrorCode::NotFound);
        // The load stopped at the failing call and freed the k - 1 buffers before it.
        EXPECT_EQ(counting_.allocate_calls() - calls_before, k);
        EXPECT_EQ(counting_.successful_allocations() - successes_before, k - 1);
        EXPECT_EQ(counting_.live_allocations(), 0u);
        EXPECT_TRUE(free_memory_near(before));
        EXPECT_EQ(current_device(), home);

        // The Module is still usable: without the fault the same method loads and unloads.
        counting_.fail_allocation_at(0);
        const Error retried = module.load_method(method);
        ASSERT_TRUE(retried.ok()) << retried;
        EXPECT_EQ(counting_.live_allocations(), buffers.size());
        ASSERT_TRUE(module.unload_method(method).ok());
        EXPECT_EQ(counting_.live_allocations(), 0u);
      }
    }
  }
  EXPECT_EQ(counting_.misuse_count(), 0u) << counting_.misuse_report();
  EXPECT_EQ(cuda_.deallocation_errors(), 0u) << cuda_.last_deallocation_error();
}

TEST_F(CudaModuleCleanupTest, FailedLoadLeavesAnotherModulesBuffersAlone) {
  Module loaded(make_device_add_cuda0_program(), options());
  ASSERT_TRUE(loaded.load_method("forward").ok());
  const uint8_t* kept = (*loaded.planned_memory("forward"))->buffer(1).data();

  Module failing(make_spread_buffers_program(device_count()), options());
  counting_.fail_allocation_at(counting_.allocate_calls() + 2);
  EXPECT_EQ(failing.load_method("forward").code(), ErrorCode::MemoryAllocationFailed);
  counting_.fail_allocation_at(0);

  // Only the other Module's buffer is live, still where it was, still device memory; and the
  // other Module still runs.
  EXPECT_EQ(counting_.live_allocations(), 1u);
  EXPECT_EQ(describe_pointer(kept), "device memory on cuda:0");
  std::vector<float> a = {1.0f, 2.0f, 3.0f, 4.0f}, b = {10.0f, 20.0f, 30.0f, 40.0f};
  Result<std::vector<EValue>> out =
      loaded.execute("forward", {host_float_2x2(a), host_float_2x2(b)});
  ASSERT_TRUE(out.ok()) << out.error();
  std::vector<float> sum(4, 0.0f);
  ASSERT_TRUE((*loaded.method("forward"))->copy_output_to_host(0, sum.data(), 16).ok());
  EXPECT_EQ(sum, (std::vector<float>{11.0f, 22.0f, 33.0f, 44.0f}));
}

}  // namespace
}  // namespace devplan::cuda_testing
