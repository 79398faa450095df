// The planned memory `devplan probe` hands to an engine for one execution (probe.h): every
// planned buffer of the method allocated by devplan, host buffers in its own memory, device
// buffers through the environment's device allocator (so the ledger sees them, owned
// "<method>/buffer <i>"), and every byte filled with a pattern, except the state a program reads
// before writing and gives no initial value, which starts as zeros.
//
//   std::vector<ZeroRange> zeros = unstated_state(plan, check_method_plan(plan), &notes);
//   Result<std::unique_ptr<PoisonedMemory>> m =
//       PoisonedMemory::allocate(env, session.buffers("forward"), "forward", 0xA5, limit, zeros);
//   session.load_method("forward", (*m)->supplied);   // unload before `m` goes
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <harness/engine/device_environment.h>
#include <harness/engine/engine.h>
#include <runtime_ext/analysis/plan_check.h>
#include <runtime_ext/core/device_memory_buffer.h>

namespace devplan::harness {

// Bytes of a planned buffer that start as zeros instead of the pattern.
struct ZeroRange {
  size_t buffer = 0;
  uint64_t offset = 0;
  uint64_t nbytes = 0;
};

// The mutable buffers of `plan` that the program gives no initial value: state whose first
// execution reads what the planned memory holds, which ExecuTorch's Module zero-fills. With
// `notes`, one note naming them is added when there are any.
std::vector<ZeroRange> unstated_state(const MethodPlan& plan, const MethodCheck& check,
                                      std::vector<std::string>* notes);

class PoisonedMemory {
 public:
  // `buffers`: the method's planned buffers (EngineSession::buffers). Host buffers are 64-byte
  // aligned; their total over `max_host` is MemoryAllocationFailed, as is a device allocation
  // the environment refuses. Caller-bound device outputs are filled with `pattern` too.
  static Result<std::unique_ptr<PoisonedMemory>> allocate(DeviceEnvironment& env,
                                                          const std::vector<BufferOutcome>& buffers,
                                                          const std::string& method,
                                                          uint8_t pattern, uint64_t max_host,
                                                          const std::vector<ZeroRange>& zeros);

  SuppliedPlannedMemory supplied;

 private:
  PoisonedMemory() = default;

  std::vector<std::vector<uint8_t>> host_;
  std::vector<DeviceMemoryBuffer> device_;
};

}  // namespace devplan::harness
