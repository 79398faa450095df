#include "module_gpu_test.h"

#include <cuda_runtime_api.h>
#include <mocks/simulated_device_backend.h>
#include <mocks/tracking_device_allocator.h>
#include <runtime_ext/cuda/cuda_registration.h>

#include <cstring>
#include <sstream>

namespace devplan::cuda_testing {

std::vector<uint8_t> make_spread_buffers_program(int device_count) {
  ProgramBuilder builder;
  MethodBuilder& m = builder.add_method("forward");
  m.add_buffer(64);
  m.add_buffer(64 * kMiB, Device::cuda(0));
  m.add_buffer(48, Device::cuda(0));
  if (device_count >= 2) {
    m.add_buffer(32 * kMiB, Device::cuda(1));
    m.add_buffer(4096, Device::cuda(1));
  }
  m.add_buffer(16);
  const int32_t x = m.add_runtime_tensor(TensorSpec::of(ScalarType::Float, {2, 2}));
  m.add_chain();
  m.set_inputs({x});
  m.set_outputs({x});
  return builder.build();
}

EValue host_float_2x2(std::vector<float>& values) {
  Tensor t;
  t.dtype = ScalarType::Float;
  t.sizes = {2, 2};
  t.data = values.data();
  t.nbytes = values.size() * sizeof(float);
  t.device = Device::cpu();
  return EValue::from_tensor(t);
}

Result<std::vector<std::vector<uint8_t>>> copy_outputs_to_host(const Method& method) {
  std::vector<std::vector<uint8_t>> outputs;
  for (size_t i = 0; i < method.num_outputs(); ++i) {
    DEVPLAN_ASSIGN_OR_RETURN(const EValue* out, method.get_output(i));
    if (!out->is_tensor()) {
      return Error(ErrorCode::InvalidType, "output " + std::to_string(i) + " is not a tensor");
    }
    std::vector<uint8_t> bytes(out->tensor.nbytes, 0);
    DEVPLAN_RETURN_IF_ERROR(method.copy_output_to_host(i, bytes.data(), bytes.size()));
    outputs.push_back(std::move(bytes));
  }
  return outputs;
}

Result<std::vector<std::vector<uint8_t>>> run_simulated(const std::vector<uint8_t>& program,
                                                        const std::string& method_name,
                                                        const std::vector<EValue>& inputs) {
  TrackingDeviceAllocator tracking;
  SimulatedDeviceBackend add(SimulatedDeviceBackend::Op::Add);
  DeviceAllocatorRegistry allocators;
  BackendRegistry backends;
  DEVPLAN_RETURN_IF_ERROR(allocators.register_allocator(&tracking));
  DEVPLAN_RETURN_IF_ERROR(backends.register_backend(SimulatedDeviceBackend::kAddBackendId, &add));
  ModuleOptions options;
  options.runtime.allocators = &allocators;
  options.runtime.backends = &backends;
  std::vector<std::vector<uint8_t>> outputs;
  {
    Module module(program, options);
    DEVPLAN_RETURN_IF_ERROR(module.execute(method_name, inputs).error());
    DEVPLAN_ASSIGN_OR_RETURN(Method * method, module.method(method_name));
    DEVPLAN_ASSIGN_OR_RETURN(outputs, copy_outputs_to_host(*method));
  }
  EXPECT_FALSE(tracking.has_leaks()) << tracking.leak_report();
  EXPECT_FALSE(tracking.has_misuse()) << tracking.misuse_report();
  return outputs;
}

std::string describe_pointer(const void* ptr) {
  cudaPointerAttributes attributes{};
  const cudaError_t status = cudaPointerGetAttributes(&attributes, ptr);
  if (status != cudaSuccess) {
    cudaGetLastError();  // a failed query is not sticky; clear it so later checks start clean
    return std::string("cudaPointerGetAttributes failed: ") + cudaGetErrorString(status);
  }
  switch (attributes.type) {
    case cudaMemoryTypeUnregistered:
      return "unregistered host memory";
    case cudaMemoryTypeHost:
      return "page-locked host memory";
    case cudaMemoryTypeDevice:
      return "device memory on cuda:" + std::to_string(attributes.device);
    case cudaMemoryTypeManaged:
      return "managed memory on cuda:" + std::to_string(attributes.device);
  }
  return "memory of unknown type " + std::to_string(static_cast<int>(attributes.type));
}

ScopedCurrentDevice::ScopedCurrentDevice(int device) : previous_(current_device()) {
  const cudaError_t status = cudaSetDevice(device);
  EXPECT_EQ(status, cudaSuccess) << "cudaSetDevice(" << device
                                 << "): " << cudaGetErrorString(status);
}

ScopedCurrentDevice::~ScopedCurrentDevice() {
  if (previous_ < 0) return;
  const cudaError_t status = cudaSetDevice(previous_);
  EXPECT_EQ(status, cudaSuccess) << "cudaSetDevice(" << previous_
                                 << "): " << cudaGetErrorString(status);
}

void ModuleGpuTest::SetUp() {
  CudaTest::SetUp();
  if (IsSkipped() || HasFatalFailure()) return;
  ASSERT_TRUE(allocators_.register_allocator(&counting_).ok());
  const Error backend = register_cuda_backend(backends_);
  ASSERT_TRUE(backend.ok()) << backend;
  // Warm-up: one allocation, copy and free per device, so the allocator's first use on each
  // device is not inside a measured window.
  for (int d = 0; d < device_count(); ++d) {
    const DeviceIndex index = static_cast<DeviceIndex>(d);
    Result<void*> p = cuda_.allocate(64, index);
    ASSERT_TRUE(p.ok()) << p.error();
    const uint8_t bytes[64] = {};
    const Error copied = cuda_.copy_host_to_device(*p, bytes, sizeof(bytes), index);
    cuda_.deallocate(*p, index);
    ASSERT_TRUE(copied.ok()) << copied;
  }
}

ModuleOptions ModuleGpuTest::options() const {
  ModuleOptions options;
  options.runtime.allocators = &allocators_;
  options.runtime.backends = &backends_;
  return options;
}

std::vector<size_t> ModuleGpuTest::free_memory() const {
  std::vector<size_t> free_bytes;
  for (int d = 0; d < device_count(); ++d) free_bytes.push_back(free_device_memory(d));
  return free_bytes;
}

::testing::AssertionResult ModuleGpuTest::free_memory_near(
    const std::vector<size_t>& before) const {
  if (under_compute_sanitizer()) return ::testing::AssertionSuccess();
  const std::vector<size_t> now = free_memory();
  std::ostringstream problems;
  bool ok = now.size() == before.size();
  for (size_t d = 0; ok && d < now.size(); ++d) {
    const size_t moved = now[d] > before[d] ? now[d] - before[d] : before[d] - now[d];
    if (moved > kFreeMemoryTolerance) {
      ok = false;
      problems << "cuda:" << d << " free memory " << before[d] << " -> " << now[d]
               << " bytes (moved " << moved << ", tolerance " << kFreeMemoryTolerance << "); ";
    }
  }
  if (ok) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << problems.str();
}

uint64_t ModuleGpuTest::backend_executions() { return process_cuda_add_backend().executions(); }

}  // namespace devplan::cuda_testing
