// KernelRegistry: host kernels by operator name, keyed "name.overload" ("aten::add.out").
//
//   KernelRegistry& kernels = KernelRegistry::global();   // holds the built-in kernels
//   KernelFunction add = kernels.find("aten::add.out");
//
// A kernel gets its arguments in the instruction's order (for out variants: the schema's
// arguments, the out tensor included, then the returned value) and returns an Error.
//
// Threading: lookups and registrations may run concurrently (a shared mutex guards the map).
#pragma once

#include <map>
#include <shared_mutex>
#include <string>
#include <vector>

#include <runtime_ext/core/error.h>
#include <runtime_ext/core/span.h>
#include <runtime_ext/executor/kernel_context.h>

namespace devplan {

using KernelFunction = Error (*)(KernelContext& ctx, Span<EValue*> args);

class KernelRegistry {
 public:
  KernelRegistry() = default;
  KernelRegistry(const KernelRegistry&) = delete;
  KernelRegistry& operator=(const KernelRegistry&) = delete;

  // The process-wide registry, with the built-in kernels (add, mul, et_copy) registered.
  static KernelRegistry& global();

  // AlreadyRegistered when `name` has a kernel; InvalidArgument for an empty name or null fn.
  Error register_kernel(const std::string& name, KernelFunction fn);
  // Removes `name`; NotFound when it has no kernel.
  Error unregister_kernel(const std::string& name);

  // The kernel for `name`, or nullptr.
  KernelFunction find(const std::string& name) const;
  std::vector<std::string> names() const;

 private:
  mutable std::shared_mutex mutex_;
  std::map<std::string, KernelFunction> kernels_;
};

// Registers add, mul, _h2d_copy and _d2h_copy into `registry`.
Error register_builtin_kernels(KernelRegistry& registry);

}  // namespace devplan
