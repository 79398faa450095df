// Module on real GPUs, device selection: a program that places a buffer on a CUDA device this
// machine does not have (cuda:<device count> and beyond) fails load_method with an error naming
// the device, allocates nothing that outlives the failure, and leaves the caller's current
// device as it was; nothing is silently placed on the current device instead.
#include <fixtures/generator/fixture_programs.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "module_gpu_test.h"

namespace devplan::cuda_testing {
namespace {

// device_add_cuda0's method with everything on `device` instead of cuda:0: buffers cpu:0 32 B
// and `device` 48 B; h2d a, h2d b, DeviceAddBackend on `device`, d2h.
std::vector<uint8_t> make_device_add_program_on(Device device) {
  ProgramBuilder builder;
  MethodBuilder& m = builder.add_method("forward");
  const TensorSpec host = TensorSpec::of(ScalarType::Float, {2, 2});
  const TensorSpec on_device = TensorSpec::of(ScalarType::Float, {2, 2}, device);
  const uint32_t host_buffer = m.add_buffer(32);
  const uint32_t device_buffer = m.add_buffer(48, device);
  const int32_t a = m.add_planned_tensor(host, host_buffer, 0);
  const int32_t b = m.add_planned_tensor(host, host_buffer, 16);
  const int32_t a_dev = m.add_planned_tensor(on_device, device_buffer, 0);
  const int32_t b_dev = m.add_planned_tensor(on_device, device_buffer, 16);
  const int32_t sum_dev = m.add_planned_tensor(on_device, device_buffer, 32);
  const int32_t out = m.add_planned_tensor(host, host_buffer, 0);
  const int32_t h2d = m.add_operator("et_copy::_h2d_copy", "out");
  const int32_t d2h = m.add_operator("et_copy::_d2h_copy", "out");
  const std::string target = device.to_string();
  const int32_t add =
      m.add_delegate(kDeviceAddBackendId, {'a', 'd', 'd'},
                     {{kTargetDeviceSpecKey, std::vector<uint8_t>(target.begin(), target.end())}});
  m.add_chain();
  m.add_kernel_call(h2d, {a, a_dev, a_dev});
  m.add_kernel_call(h2d, {b, b_dev, b_dev});
  m.add_delegate_call(add, {a_dev, b_dev, sum_dev});
  m.add_kernel_call(d2h, {sum_dev, out, out});
  m.set_inputs({a, b});
  m.set_outputs({out});
  return builder.build();
}

// device_add_cuda0 plus a 64-byte buffer 2 on `device`, which no tensor uses.
std::vector<uint8_t> make_device_add_cuda0_plus_buffer_on(Device device) {
  ProgramBuilder builder = device_add_cuda0_program_builder();
  builder.method(0).add_buffer(64, device);
  return builder.build();
}

class CudaModuleSelectionTest : public ModuleGpuTest {
 protected:
  // The absent devices to try: one past the last, two past, and the largest index a file holds.
  std::vector<DeviceIndex> absent_devices() const {
    std::vector<DeviceIndex> absent;
    for (int index : {device_count(), device_count() + 1, int{kMaxDeviceIndex}}) {
      if (index <= kMaxDeviceIndex &&
          (absent.empty() || absent.back() != static_cast<DeviceIndex>(index))) {
        absent.push_back(static_cast<DeviceIndex>(index));
      }
    }
    return absent;
  }

  // CudaAllocator's reason for an absent device, as the allocator words it.
  std::string invalid_device(DeviceIndex index) const {
    const std::string visible = device_count() == 1
                                    ? std::string("1 CUDA device is visible (cuda:0)")
                                    : std::to_string(device_count()) +
                                          " CUDA devices are visible (cuda:0 to cuda:" +
                                          std::to_string(device_count() - 1) + ")";
    return "CudaAllocator::allocate: invalid device " + Device::cuda(index).to_string() + ": " +
           visible;
  }
};

TEST_F(CudaModuleSelectionTest, BufferOnAnAbsentDeviceFailsTheLoadAndAllocatesNothing) {
  const int home = device_count() - 1;
  ScopedCurrentDevice scoped(home);
  for (DeviceIndex index : absent_devices()) {
    const std::string device = Device::cuda(index).to_string();
    SCOPED_TRACE(device);
    const std::vector<size_t> before = free_memory();
    const uint64_t calls_before = counting_.allocate_calls();
    const uint64_t successes_before = counting_.successful_allocations();
    Module module(make_device_add_program_on(Device::cuda(index)), options());
    for (int attempt = 0; attempt < 2; ++attempt) {  // a retry fails the same way
      const Error loaded = module.load_method("forward");
      EXPECT_EQ(loaded.code(), ErrorCode::InvalidArgument);
      EXPECT_EQ(loaded.message(), "method 'forward': buffer 1 (48 bytes on " + device +
                                      "): allocating 48 bytes on " + device + ": " +
                                      invalid_device(index));
      EXPECT_FALSE(module.is_method_loaded("forward"));
    }
    // Both attempts reached the allocator, which allocated nothing anywhere.
    EXPECT_EQ(counting_.allocate_calls() - calls_before, 2u);
    EXPECT_EQ(counting_.successful_allocations() - successes_before, 0u);
    EXPECT_EQ(counting_.live_allocations(), 0u);
    EXPECT_EQ(current_device(), home);
    EXPECT_TRUE(free_memory_near(before));
  }
  EXPECT_EQ(counting_.misuse_count(), 0u) << counting_.misuse_report();
}

TEST_F(CudaModuleSelectionTest, AbsentDeviceAfterAPresentOneFreesThePresentOnesBuffer) {
  const int home = device_count() - 1;
  ScopedCurrentDevice scoped(home);
  const DeviceIndex index = static_cast<DeviceIndex>(device_count());
  const std::string device = Device::cuda(index).to_string();
  {  // warm-up
    Module module(make_device_add_cuda0_program(), options());
    ASSERT_TRUE(module.load_method("forward").ok());
  }
  const std::vector<size_t> before = free_memory();
  const uint64_t calls_before = counting_.allocate_calls();
  const uint64_t frees_before = counting_.frees();
  {
    Module module(make_device_add_cuda0_plus_buffer_on(Device::cuda(index)), options());
    const Error loaded = module.load_method("forward");
    EXPECT_EQ(loaded.code(), ErrorCode::InvalidArgument);
    EXPECT_EQ(loaded.message(), "method 'forward': buffer 2 (64 bytes on " + device +
                                    "): allocating 64 bytes on " + device + ": " +
                                    invalid_device(index));
    EXPECT_FALSE(module.is_method_loaded("forward"));
    // Buffer 1 on cuda:0 was allocated, then freed when the load unwound.
    EXPECT_EQ(counting_.allocate_calls() - calls_before, 2u);
    EXPECT_EQ(counting_.frees() - frees_before, 1u);
    EXPECT_EQ(counting_.live_allocations(), 0u);
    EXPECT_EQ(current_device(), home);
  }
  EXPECT_EQ(counting_.live_allocations(), 0u);
  EXPECT_TRUE(free_memory_near(before));
  EXPECT_EQ(counting_.misuse_count(), 0u) << counting_.misuse_report();
}

TEST_F(CudaModuleSelectionTest, EveryPresentDeviceIsSelectedAsPlanned) {
  // The same program placed on each device this machine has runs there.
  std::vector<float> a = {1.0f, 2.0f, 3.0f, 4.0f}, b = {10.0f, 20.0f, 30.0f, 40.0f};
  const int home = device_count() - 1;
  ScopedCurrentDevice scoped(home);
  for (int d = 0; d < device_count(); ++d) {
    SCOPED_TRACE("cuda:" + std::to_string(d));
    Module module(make_device_add_program_on(Device::cuda(static_cast<DeviceIndex>(d))), options());
    Result<std::vector<EValue>> out =
        module.execute("forward", {host_float_2x2(a), host_float_2x2(b)});
    ASSERT_TRUE(out.ok()) << out.error();
    EXPECT_EQ(describe_pointer((*module.planned_memory("forward"))->buffer(1).data()),
              "device memory on cuda:" + std::to_string(d));
    std::vector<float> sum(4, 0.0f);
    ASSERT_TRUE((*module.method("forward"))->copy_output_to_host(0, sum.data(), 16).ok());
    EXPECT_EQ(sum, (std::vector<float>{11.0f, 22.0f, 33.0f, 44.0f}));
    EXPECT_EQ(current_device(), home);
  }
  EXPECT_EQ(counting_.live_allocations(), 0u);
}

}  // namespace
}  // namespace devplan::cuda_testing
