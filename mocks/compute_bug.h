// ComputeBugInjector: the device backends' compute made wrong on purpose, the way a delegate's
// bug would be (`devplan probe --inject-bug`), so tests can show that execution evidence finds
// each kind. It wraps the SimulatedDeviceBackend::DeviceElementwise hook both engines' device
// backends call, so the runtime itself stays free of test hooks:
//
//   ComputeBugInjector bug(ComputeBug::UnwrittenOutput, &device_allocator, inner_hook);
//   SimulatedDeviceBackend backend(Op::Add, bug.hook());
//   bug.start_execution();   // before each execution (MergedOutputs pairs calls within one)
//
// The kinds:
//   unwritten-output   every call returns success and leaves its output as it was;
//   merged-outputs     the second call of each pair within an execution writes its result into
//                      the first call's output and leaves its own unwritten (two graph outputs
//                      merged into one buffer);
//   read-before-write  every call adds its output's previous bytes to its result, byte by byte,
//                      as a kernel that takes its buffer for zeroed scratch would.
// Not thread-safe: one execution at a time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <mocks/simulated_device_backend.h>
#include <runtime_ext/core/device_allocator.h>

namespace devplan {

enum class ComputeBug : uint8_t { None, UnwrittenOutput, MergedOutputs, ReadBeforeWrite };

// "none", "unwritten-output", "merged-outputs", "read-before-write".
const char* compute_bug_name(ComputeBug bug);
// The bug named `text`; InvalidArgument naming the choices otherwise.
Result<ComputeBug> parse_compute_bug(const std::string& text);

class ComputeBugInjector {
 public:
  // `allocator` moves device bytes (the one the backends use); `inner` computes correctly (may
  // be empty: staged through `allocator` on the host).
  ComputeBugInjector(ComputeBug bug, DeviceAllocator* allocator,
                     SimulatedDeviceBackend::DeviceElementwise inner);

  ComputeBug bug() const { return bug_; }
  // The hook for the backends; it refers to this object, which must outlive it.
  SimulatedDeviceBackend::DeviceElementwise hook();
  // Forgets the calls of the previous execution.
  void start_execution() { pending_output_.reset(); }

 private:
  std::optional<Error> call(SimulatedDeviceBackend::Op op, const Tensor& a, const Tensor& b,
                            const Tensor& out, Device device);
  // The correct result of `op` written into `out`.
  Error compute(SimulatedDeviceBackend::Op op, const Tensor& a, const Tensor& b,
                const Tensor& out) const;

  ComputeBug bug_;
  DeviceAllocator* allocator_;
  SimulatedDeviceBackend::DeviceElementwise inner_;
  std::optional<Tensor> pending_output_;  // merged-outputs: the first call's output of a pair
};

}  // namespace devplan
