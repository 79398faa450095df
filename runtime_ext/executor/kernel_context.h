// KernelContext: what a kernel may use besides its arguments: its operator's name and the
// value indices of its arguments (for error messages), the device allocators (for copy
// kernels) and a scratch allocator.
#pragma once

#include <string>

#include <runtime_ext/core/device_allocator_registry.h>
#include <runtime_ext/core/memory_allocator.h>
#include <runtime_ext/core/span.h>
#include <runtime_ext/executor/evalue.h>

namespace devplan {

struct KernelContext {
  std::string op_name;                // "aten::add.out"
  Span<const int32_t> value_indices;  // value index of each argument
  const DeviceAllocatorRegistry* allocators = nullptr;
  MemoryAllocator* temp_allocator = nullptr;

  // An error about argument `arg` (its position in args): "<op>: value <v>: <what>".
  Error arg_error(ErrorCode code, size_t arg, const std::string& what) const;
  // An error about the call as a whole: "<op>: <what>".
  Error error(ErrorCode code, const std::string& what) const;
};

// Fails unless argument `arg` is a Tensor on the CPU. Host kernels call this for every tensor
// they read or write, so that device memory is never dereferenced on the host.
Error require_host_tensor(const KernelContext& ctx, Span<EValue*> args, size_t arg);

// Fails unless argument `arg` is a Tensor (on any device).
Error require_tensor(const KernelContext& ctx, Span<EValue*> args, size_t arg);

}  // namespace devplan
