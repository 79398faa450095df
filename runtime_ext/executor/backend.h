// Backend: runs a method's delegates (DelegateCall instructions), typically on a device.
//
//   class MyBackend : public Backend { ... };
//   MyBackend backend;
//   ScopedBackend scoped("DeviceAddBackend", &backend);   // or BackendRegistry::global()
//
// Method::load calls init() once per delegate of the method and keeps the handle until the
// method is destroyed; execute() gets the delegate's arguments: its inputs, then its outputs.
// A delegate whose backend is not registered does not stop a load; executing it returns
// OperatorMissing naming the delegate id.
//
// Threading: BackendRegistry lookups and registrations may run concurrently. A Backend's
// init/execute may be called from several threads for different methods.
#pragma once

#include <map>
#include <memory>
#include <shared_mutex>
#include <string>

#include <runtime_ext/core/device_allocator_registry.h>
#include <runtime_ext/core/span.h>
#include <runtime_ext/executor/evalue.h>
#include <runtime_ext/program/method_plan.h>

namespace devplan {

// What a backend keeps for one delegate between init and destruction.
class DelegateHandle {
 public:
  virtual ~DelegateHandle() = default;
};

struct BackendContext {
  std::string method_name;
  std::string delegate_id;
  Span<const int32_t> value_indices;  // execute only: value index of each argument
  const DeviceAllocatorRegistry* allocators = nullptr;
};

class Backend {
 public:
  virtual ~Backend() = default;
  // Prepares `delegate`. A null handle is allowed when the backend keeps no state.
  virtual Result<std::unique_ptr<DelegateHandle>> init(const DelegateInfo& delegate,
                                                       const BackendContext& ctx) = 0;
  virtual Error execute(DelegateHandle* handle, const BackendContext& ctx, Span<EValue*> args) = 0;
};

class BackendRegistry {
 public:
  BackendRegistry() = default;
  BackendRegistry(const BackendRegistry&) = delete;
  BackendRegistry& operator=(const BackendRegistry&) = delete;

  static BackendRegistry& global();

  // AlreadyRegistered when `id` has a backend; InvalidArgument for empty id or null backend.
  Error register_backend(const std::string& id, Backend* backend);
  // NotFound when `id` is not registered to `backend`.
  Error unregister_backend(const std::string& id, Backend* backend);
  // The backend for `id`, or nullptr.
  Backend* find(const std::string& id) const;
  // Replaces the entry for `id` (nullptr removes it) and returns the previous one.
  Backend* exchange(const std::string& id, Backend* backend);

 private:
  mutable std::shared_mutex mutex_;
  std::map<std::string, Backend*> backends_;
};

// Installs a backend under `id` for a scope, then restores what was there.
class ScopedBackend {
 public:
  ScopedBackend(std::string id, Backend* backend,
                BackendRegistry& registry = BackendRegistry::global());
  ~ScopedBackend();
  ScopedBackend(const ScopedBackend&) = delete;
  ScopedBackend& operator=(const ScopedBackend&) = delete;

 private:
  BackendRegistry& registry_;
  std::string id_;
  Backend* previous_;
};

}  // namespace devplan
