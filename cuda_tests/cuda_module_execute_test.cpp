// Module on real GPUs, end to end: the device fixture programs run on the GPU (Module::execute
// with host input tensors, the h2d/d2h copies through CudaAllocator, the adds in
// CudaAddBackend's kernel) and give, byte for byte, the outputs the same program gives on the
// simulated device (TrackingDeviceAllocator + SimulatedDeviceBackend), which are also checked
// against the sums computed here. Afterwards nothing is left allocated.
#include <fixtures/generator/fixture_programs.h>
#include <gtest/gtest.h>

#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "module_gpu_test.h"

namespace devplan::cuda_testing {
namespace {

std::vector<uint8_t> bytes_of(const std::vector<float>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(float));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

// "[2, 1.75, -4.125, 1048578.5]": the bytes read as float32 values, for failure messages.
std::string floats_of(const std::vector<uint8_t>& bytes) {
  std::ostringstream text;
  text << "[";
  for (size_t i = 0; i + sizeof(float) <= bytes.size(); i += sizeof(float)) {
    float value = 0.0f;
    std::memcpy(&value, bytes.data() + i, sizeof(float));
    text << (i == 0 ? "" : ", ") << value;
  }
  text << "]";
  return text.str();
}

class CudaModuleExecuteTest : public ModuleGpuTest {
 protected:
  // Inputs with fractions, negatives and a large value; every sum below is exact in float32.
  std::vector<float> a_ = {1.5f, -2.25f, 3.0f, 1048576.0f};
  std::vector<float> b_ = {0.5f, 4.0f, -7.125f, 2.5f};

  // Runs `method` of `program` on the GPU and on the simulated device with (a_, b_) and checks
  // that both give `expected` as their one output; `delegate_calls` is the number of
  // CudaAddBackend executions one run makes. The GPU run happens twice on one loaded method,
  // the second time with the inputs swapped and negated, so stale inputs would show.
  void expect_same_as_simulated(const std::vector<uint8_t>& program, const std::string& method,
                                const std::vector<float>& expected, uint64_t delegate_calls) {
    {  // warm-up: the first kernel launch may load the kernel's code onto the device for good
      Module warm_up(program, options());
      ASSERT_TRUE(warm_up.execute(method, {host_float_2x2(a_), host_float_2x2(b_)}).ok());
    }
    const std::vector<size_t> before = free_memory();
    {
      Module module(program, options());
      const uint64_t executions_before = backend_executions();
      Result<std::vector<EValue>> outputs =
          module.execute(method, {host_float_2x2(a_), host_float_2x2(b_)});
      ASSERT_TRUE(outputs.ok()) << outputs.error();
      ASSERT_EQ(outputs->size(), 1u);
      EXPECT_EQ(backend_executions() - executions_before, delegate_calls);
      Result<Method*> loaded = module.method(method);
      ASSERT_TRUE(loaded.ok()) << loaded.error();
      Result<std::vector<std::vector<uint8_t>>> on_gpu = copy_outputs_to_host(**loaded);
      ASSERT_TRUE(on_gpu.ok()) << on_gpu.error();

      Result<std::vector<std::vector<uint8_t>>> simulated =
          run_simulated(program, method, {host_float_2x2(a_), host_float_2x2(b_)});
      ASSERT_TRUE(simulated.ok()) << simulated.error();
      ASSERT_EQ(simulated->size(), 1u);
      EXPECT_EQ((*on_gpu)[0], (*simulated)[0])
          << "the GPU gives " << floats_of((*on_gpu)[0]) << ", the simulated device "
          << floats_of((*simulated)[0]);
      EXPECT_EQ((*on_gpu)[0], bytes_of(expected)) << "the GPU gives " << floats_of((*on_gpu)[0])
                                                  << ", expected " << floats_of(bytes_of(expected));

      // Again on the same loaded method, with other inputs.
      std::vector<float> neg_a(4), neg_b(4);
      for (size_t i = 0; i < 4; ++i) {
        neg_a[i] = -b_[i];
        neg_b[i] = -a_[i];
      }
      outputs = module.execute(method, {host_float_2x2(neg_a), host_float_2x2(neg_b)});
      ASSERT_TRUE(outputs.ok()) << outputs.error();
      on_gpu = copy_outputs_to_host(**loaded);
      ASSERT_TRUE(on_gpu.ok()) << on_gpu.error();
      simulated = run_simulated(program, method, {host_float_2x2(neg_a), host_float_2x2(neg_b)});
      ASSERT_TRUE(simulated.ok()) << simulated.error();
      EXPECT_EQ((*on_gpu)[0], (*simulated)[0])
          << "second run: the GPU gives " << floats_of((*on_gpu)[0]) << ", the simulated device "
          << floats_of((*simulated)[0]);
      EXPECT_NE((*on_gpu)[0], bytes_of(expected)) << "the second run repeated the first";
      EXPECT_EQ(backend_executions() - executions_before, 2 * delegate_calls);
    }
    EXPECT_EQ(counting_.live_allocations(), 0u);
    EXPECT_EQ(counting_.misuse_count(), 0u) << counting_.misuse_report();
    EXPECT_EQ(cuda_.deallocation_errors(), 0u) << cuda_.last_deallocation_error();
    EXPECT_TRUE(free_memory_near(before));
  }

  std::vector<float> a_plus_b() const {
    std::vector<float> sum(4);
    for (size_t i = 0; i < 4; ++i) sum[i] = a_[i] + b_[i];
    return sum;
  }
};

TEST_F(CudaModuleExecuteTest, DeviceAddCuda0MatchesTheSimulatedDevice) {
  // 2.0, 1.75, -4.125, 1048578.5
  expect_same_as_simulated(make_device_add_cuda0_program(), "forward", a_plus_b(), 1);
}

TEST_F(CudaModuleExecuteTest, MultiDeviceMatchesTheSimulatedDevice) {
  if (device_count() < 2) {
    GTEST_SKIP() << "multi_device runs its second add on cuda:1; this machine has 1 CUDA device";
  }
  std::vector<float> expected(4);
  for (size_t i = 0; i < 4; ++i) expected[i] = (a_[i] + b_[i]) + b_[i];
  expect_same_as_simulated(make_multi_device_program(), "forward", expected, 2);
}

TEST_F(CudaModuleExecuteTest, TwoMethodsBothMatchTheSimulatedDevice) {
  expect_same_as_simulated(make_two_methods_program(), "device_forward", a_plus_b(), 1);
  expect_same_as_simulated(make_two_methods_program(), "cpu_forward", a_plus_b(), 0);
}

TEST_F(CudaModuleExecuteTest, DeviceOnlyMatchesTheSimulatedDevice) {
  expect_same_as_simulated(make_device_only_program(), "forward", a_plus_b(), 1);
}

TEST_F(CudaModuleExecuteTest, DeviceOnlyOutputIsDeviceMemoryOfCuda0) {
  Module module(make_device_only_program(), options());
  Result<std::vector<EValue>> outputs =
      module.execute("forward", {host_float_2x2(a_), host_float_2x2(b_)});
  ASSERT_TRUE(outputs.ok()) << outputs.error();
  ASSERT_EQ(outputs->size(), 1u);
  const Tensor& out = (*outputs)[0].tensor;
  EXPECT_EQ(out.device, Device::cuda(0));
  EXPECT_EQ(out.nbytes, 16u);
  EXPECT_EQ(describe_pointer(out.data), "device memory on cuda:0");
  // It is the planned sum_dev slot: buffer 0 at byte 32.
  EXPECT_EQ(static_cast<const uint8_t*>(out.data),
            (*module.planned_memory("forward"))->buffer(0).data() + 32);
  // Read back through the allocator, as Method::copy_output_to_host does.
  std::vector<float> sum(4, 0.0f);
  ASSERT_TRUE(counting_.copy_device_to_host(sum.data(), out.data, 16, 0).ok());
  EXPECT_EQ(sum, a_plus_b());
}

TEST_F(CudaModuleExecuteTest, ZeroSizeDeviceBufferMatchesTheSimulatedDevice) {
  expect_same_as_simulated(make_zero_size_device_buffer_program(), "forward", a_plus_b(), 1);
}

TEST_F(CudaModuleExecuteTest, CopiesGoThroughTheRegisteredAllocator) {
  Module module(make_device_add_cuda0_program(), options());
  const uint64_t h2d_before = counting_.host_to_device_copies();
  const uint64_t d2h_before = counting_.device_to_host_copies();
  ASSERT_TRUE(module.execute("forward", {host_float_2x2(a_), host_float_2x2(b_)}).ok());
  // Two h2d copy kernels (a, b) and one d2h copy kernel (the sum).
  EXPECT_EQ(counting_.host_to_device_copies() - h2d_before, 2u);
  EXPECT_EQ(counting_.device_to_host_copies() - d2h_before, 1u);
  std::vector<float> sum(4, 0.0f);
  ASSERT_TRUE((*module.method("forward"))->copy_output_to_host(0, sum.data(), 16).ok());
  EXPECT_EQ(sum, a_plus_b());
}

}  // namespace
}  // namespace devplan::cuda_testing
