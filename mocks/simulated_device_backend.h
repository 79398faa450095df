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
// Threading: stateless apart from counters; safe to share between methods and threads.
#pragma once

#include <atomic>
#include <cstdint>

#include <runtime_ext/executor/backend.h>

namespace devplan {

class SimulatedDeviceBackend : public Backend {
 public:
  enum class Op : uint8_t { Add, Mul };

  // The backend ids the fixture programs use for each op.
  static constexpr const char* kAddBackendId = "DeviceAddBackend";
  static constexpr const char* kMulBackendId = "DeviceMulBackend";

  explicit SimulatedDeviceBackend(Op op = Op::Add) : op_(op) {}

  Result<std::unique_ptr<DelegateHandle>> init(const DelegateInfo& delegate,
                                               const BackendContext& ctx) override;
  Error execute(DelegateHandle* handle, const BackendContext& ctx, Span<EValue*> args) override;

  uint64_t executions() const { return executions_.load(); }

 private:
  Op op_;
  std::atomic<uint64_t> executions_{0};
};

}  // namespace devplan
