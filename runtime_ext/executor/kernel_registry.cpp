#include <runtime_ext/executor/kernel_registry.h>

#include <mutex>

#include <runtime_ext/executor/kernels/builtin_kernels.h>

namespace devplan {

KernelRegistry& KernelRegistry::global() {
  static KernelRegistry* registry = [] {
    auto* r = new KernelRegistry();  // never destroyed: kernels may be looked up at exit
    (void)register_builtin_kernels(*r);
    return r;
  }();
  return *registry;
}

Error KernelRegistry::register_kernel(const std::string& name, KernelFunction fn) {
  if (name.empty() || fn == nullptr) {
    return Error(ErrorCode::InvalidArgument, "a kernel needs a name and a function");
  }
  std::unique_lock<std::shared_mutex> lock(mutex_);
  if (!kernels_.emplace(name, fn).second) {
    return Error(ErrorCode::AlreadyRegistered, "kernel " + name + " is already registered");
  }
  return Error::success();
}

Error KernelRegistry::unregister_kernel(const std::string& name) {
  std::unique_lock<std::shared_mutex> lock(mutex_);
  if (kernels_.erase(name) == 0) {
    return Error(ErrorCode::NotFound, "kernel " + name + " is not registered");
  }
  return Error::success();
}

KernelFunction KernelRegistry::find(const std::string& name) const {
  std::shared_lock<std::shared_mutex> lock(mutex_);
  auto it = kernels_.find(name);
  return it == kernels_.end() ? nullptr : it->second;
}

std::vector<std::string> KernelRegistry::names() const {
  std::shared_lock<std::shared_mutex> lock(mutex_);
  std::vector<std::string> out;
  for (const auto& entry : kernels_) out.push_back(entry.first);
  return out;
}

Error register_builtin_kernels(KernelRegistry& registry) {
  DEVPLAN_RETURN_IF_ERROR(registry.register_kernel("aten::add.out", &add_out_kernel));
  DEVPLAN_RETURN_IF_ERROR(registry.register_kernel("aten::mul.out", &mul_out_kernel));
  DEVPLAN_RETURN_IF_ERROR(registry.register_kernel("et_copy::_h2d_copy.out", &h2d_copy_kernel));
  DEVPLAN_RETURN_IF_ERROR(registry.register_kernel("et_copy::_d2h_copy.out", &d2h_copy_kernel));
  return Error::success();
}

}  // namespace devplan
