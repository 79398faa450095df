// SimulatedDeviceBackend: a Backend that runs elementwise delegates (add, mul) on simulated
// device tensors, e.g. memory from a TrackingDeviceAllocator.
//
//   TrackingDeviceAllocator cuda;
//   ScopedDeviceAllocator scoped_cuda(&cuda);
//   SimulatedDeviceBackend add(SimulatedDeviceBackend::Op::Add);
//   ScopedBackend scoped_add("DeviceAddBackend", &add);
//
// A delegate call's arguments are its inputs, then its outputs: (a, b, out). All three must be
// tensors on one non-CPU device with one dtype; a and b broadcast to out's shape. The backend
// behaves like a device: it never dereferences a device pointer on the host, but stages the
// operands through the device allocator's copies (so a stale or out-of-range pointer is caught
// by the allocator's checks), computes with the host kernel, and copies the result back.
//
// On a real device the compute may run there instead (DeviceElementwise, e.g. CUDA kernels): the
// staging through copies then stays only for what the device's kernels do not handle, so the
// errors are the host kernel's in every case.
//
// Threading: stateless apart from counters; safe to share between methods and threads.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>

#include <runtime_ext/core/device_allocator.h>
#include <runtime_ext/executor/backend.h>
#include <runtime_ext/executor/tensor.h>

namespace devplan {

class SimulatedDeviceBackend : public Backend {
 public:
  // FromProcessed: the op is the delegate's processed bytes, "add" or "mul" (the backend
  // registered as kDevplanBackendId, the one our exporter partitioner targets).
  enum class Op : uint8_t { Add, Mul, FromProcessed };

  // The backend ids the fixture programs use for each op.
  static constexpr const char* kAddBackendId = "DeviceAddBackend";
  static constexpr const char* kMulBackendId = "DeviceMulBackend";
  // The id both engines give the device backend of exported programs
  // (scripts/export_executorch_fixtures.py); ExecuTorch's side is ExecutorchDeviceBackend.
  static constexpr const char* kDevplanBackendId = "DevplanDeviceBackend";

  // The op computed on the device where `a`, `b` and `out` live (all on `device`): the result,
  // or nullopt when the device's kernels do not handle the case (then it is staged).
  using DeviceElementwise = std::function<std::optional<Error>(
      Op op, const Tensor& a, const Tensor& b, const Tensor& out, Device device)>;

  explicit SimulatedDeviceBackend(Op op = Op::Add, DeviceElementwise on_device = {})
      : op_(op), on_device_(std::move(on_device)) {}

  Result<std::unique_ptr<DelegateHandle>> init(const DelegateInfo& delegate,
                                               const BackendContext& ctx) override;
  Error execute(DelegateHandle* handle, const BackendContext& ctx, Span<EValue*> args) override;

  uint64_t executions() const { return executions_.load(); }

 private:
  Op op_;
  DeviceElementwise on_device_;
  std::atomic<uint64_t> executions_{0};
};

// The op named by a delegate's processed bytes ("add" or "mul"); InvalidProgram naming
// `delegate` otherwise.
Result<SimulatedDeviceBackend::Op> elementwise_op_from_processed(Span<const uint8_t> processed,
                                                                 const std::string& delegate);

// The work of one delegate call, shared by both engines' device backends: checks that a, b and
// out are on one non-CPU device, stages a and b to the host through `allocator`'s copies,
// computes `op` (Add or Mul, broadcasting a and b to out) with the host kernel and copies out
// back. When all three are host memory (a legacy device program's delegate), it computes in
// place. `name`, `arg_names` and `value_indices` (one per tensor, or empty) label the errors.
// With `on_device` (non-null and set), the device computes what its kernels handle.
Error run_simulated_elementwise(
    SimulatedDeviceBackend::Op op, const std::string& name, DeviceAllocator* allocator,
    const Tensor* const tensors[3], const std::string arg_names[3],
    Span<const int32_t> value_indices = Span<const int32_t>(),
    const SimulatedDeviceBackend::DeviceElementwise* on_device = nullptr);

}  // namespace devplan
