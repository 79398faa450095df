// CudaAddBackend: the CUDA device backend behind the fixture programs' "DeviceAddBackend"
// delegates. A delegate call's arguments are (a, b, out): three tensors of one dtype (float32,
// int32 or int64) and one shape, all on the CUDA device the delegate targets; the backend adds
// a and b elementwise into out with a CUDA kernel (cuda_elementwise_add). Part of devplan::cuda
// (builds with CUDA only).
//
//   DEVPLAN_RETURN_IF_ERROR(register_cuda_allocator());
//   DEVPLAN_RETURN_IF_ERROR(register_cuda_backend());   // "DeviceAddBackend" -> CudaAddBackend
//   ... Module::load_method("forward"), execute ...
//
// init() reads the delegate's compile spec "target_device" (e.g. "cuda:1"), if present: text
// that is not a device is InvalidProgram, a device that is not CUDA is InvalidArgument. Then
// execute() requires every tensor on that device. Without the spec, the three tensors need only
// share one CUDA device.
//
// execute() checks everything on the host before launching: argument count (InvalidProgram),
// tensors (InvalidType), devices (InvalidArgument), equal dtypes (InvalidArgument), equal shapes
// (NotSupported: no broadcasting), nbytes equal to numel * element size (InvalidProgram), and the
// kernel's own checks (device pointers of the right device). Zero elements launch nothing.
// Messages start with "CudaAddBackend: " and name arguments by value index.
//
// Threading: stateless apart from an atomic counter; one instance serves every method.
#pragma once

#include <runtime_ext/executor/backend.h>

#include <atomic>
#include <cstdint>
#include <memory>

namespace devplan {

class CudaAddBackend : public Backend {
 public:
  // The backend id the fixture programs' add delegates use.
  static constexpr const char* kBackendId = "DeviceAddBackend";
  // The compile spec naming the delegate's device.
  static constexpr const char* kTargetDeviceSpec = "target_device";

  Result<std::unique_ptr<DelegateHandle>> init(const DelegateInfo& delegate,
                                               const BackendContext& ctx) override;
  Error execute(DelegateHandle* handle, const BackendContext& ctx, Span<EValue*> args) override;

  // Successful execute() calls so far.
  uint64_t executions() const { return executions_.load(); }

 private:
  std::atomic<uint64_t> executions_{0};
};

// The process-lifetime CudaAddBackend (never destroyed).
CudaAddBackend& process_cuda_add_backend();

// Registers process_cuda_add_backend() as kBackendId in the global backend registry.
// AlreadyRegistered ("register_cuda_backend: backend DeviceAddBackend is already registered")
// when a backend, this one included, already has that id; the registered one stays.
Error register_cuda_backend();

// The same for `registry`.
Error register_cuda_backend(BackendRegistry& registry);

}  // namespace devplan
