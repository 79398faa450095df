#include <runtime_ext/executor/backend.h>

#include <mutex>

namespace devplan {

BackendRegistry& BackendRegistry::global() {
  static BackendRegistry* registry = new BackendRegistry();  // lives until exit
  return *registry;
}

Error BackendRegistry::register_backend(const std::string& id, Backend* backend) {
  if (id.empty() || backend == nullptr) {
    return Error(ErrorCode::InvalidArgument, "a backend needs an id and an implementation");
  }
  std::unique_lock<std::shared_mutex> lock(mutex_);
  if (!backends_.emplace(id, backend).second) {
    return Error(ErrorCode::AlreadyRegistered, "backend " + id + " is already registered");
  }
  return Error::success();
}

Error BackendRegistry::unregister_backend(const std::string& id, Backend* backend) {
  std::unique_lock<std::shared_mutex> lock(mutex_);
  auto it = backends_.find(id);
  if (it == backends_.end() || it->second != backend) {
    return Error(ErrorCode::NotFound, "backend " + id + " is not registered to this backend");
  }
  backends_.erase(it);
  return Error::success();
}

Backend* BackendRegistry::find(const std::string& id) const {
  std::shared_lock<std::shared_mutex> lock(mutex_);
  auto it = backends_.find(id);
  return it == backends_.end() ? nullptr : it->second;
}

Backend* BackendRegistry::exchange(const std::string& id, Backend* backend) {
  std::unique_lock<std::shared_mutex> lock(mutex_);
  auto it = backends_.find(id);
  Backend* previous = it == backends_.end() ? nullptr : it->second;
  if (backend == nullptr) {
    if (it != backends_.end()) backends_.erase(it);
  } else {
    backends_[id] = backend;
  }
  return previous;
}

ScopedBackend::ScopedBackend(std::string id, Backend* backend, BackendRegistry& registry)
    : registry_(registry), id_(std::move(id)), previous_(registry.exchange(id_, backend)) {}

ScopedBackend::~ScopedBackend() { registry_.exchange(id_, previous_); }

}  // namespace devplan
