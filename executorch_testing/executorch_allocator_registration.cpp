#include <executorch_testing/executorch_allocator_registration.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <executorch/runtime/platform/log.h>

#include <executorch_testing/executorch_allocator_adapter.h>
#include <runtime_ext/core/device.h>

namespace devplan::executorch_testing {
namespace {

std::string type_name(EtDeviceType type) { return device_type_name(from_executorch(type)); }

// Forwards to the allocator on top of its stack of installed ones.
class Router final : public et::DeviceAllocator {
 public:
  void init(EtDeviceType type) { type_ = type; }

  et::Result<void*> allocate(size_t nbytes, EtDeviceIndex index, size_t alignment) override {
    et::DeviceAllocator* target = current_.load();
    if (target == nullptr) return none_installed("allocate");
    et::Result<void*> r = target->allocate(nbytes, index, alignment);
    if (r.ok()) {
      std::lock_guard<std::mutex> lock(owners_mu_);
      owners_[*r] = target;
    }
    return r;
  }
  // A free goes to the allocator that returned the pointer, whichever scope is installed now
  // (a Module may outlive a nested scope); a pointer whose allocator's scope has ended, or
  // that no allocator here returned, goes to the current one, which reports it as misuse.
  void deallocate(void* ptr, EtDeviceIndex index) override {
    et::DeviceAllocator* target = nullptr;
    {
      std::lock_guard<std::mutex> lock(owners_mu_);
      auto it = owners_.find(ptr);
      if (it != owners_.end()) {
        target = it->second;
        owners_.erase(it);
      }
    }
    if (target == nullptr) target = current_.load();
    if (target == nullptr) {
      (void)none_installed("deallocate");
      return;
    }
    target->deallocate(ptr, index);
  }
  et::Error copy_host_to_device(void* dst, const void* src, size_t nbytes,
                                EtDeviceIndex index) override {
    et::DeviceAllocator* target = current_.load();
    if (target == nullptr) return none_installed("copy_host_to_device");
    return target->copy_host_to_device(dst, src, nbytes, index);
  }
  et::Error copy_device_to_host(void* dst, const void* src, size_t nbytes,
                                EtDeviceIndex index) override {
    et::DeviceAllocator* target = current_.load();
    if (target == nullptr) return none_installed("copy_device_to_host");
    return target->copy_device_to_host(dst, src, nbytes, index);
  }
  EtDeviceType device_type() const override { return type_; }

  // Under the registration mutex.
  void push(et::DeviceAllocator* a) {
    stack_.push_back(a);
    current_.store(a);
  }
  void remove(et::DeviceAllocator* a) {
    // The most recent installation of `a` (a scope may install the same allocator again).
    auto it = std::find(stack_.rbegin(), stack_.rend(), a);
    if (it != stack_.rend()) stack_.erase(std::next(it).base());
    current_.store(stack_.empty() ? nullptr : stack_.back());
    if (std::find(stack_.begin(), stack_.end(), a) != stack_.end()) return;
    // `a` is no longer installed anywhere: forget its pointers (it may be destroyed next).
    std::lock_guard<std::mutex> lock(owners_mu_);
    for (auto o = owners_.begin(); o != owners_.end();) {
      o = o->second == a ? owners_.erase(o) : std::next(o);
    }
  }
  et::DeviceAllocator* current() const { return current_.load(); }
  uint64_t strays() const { return strays_.load(); }

 private:
  et::Error none_installed(const char* call) {
    strays_.fetch_add(1);
    ET_LOG(Error,
           "devplan: %s on %s with no device allocator installed (no live "
           "ScopedExecutorchAllocator for %s)",
           call, type_name(type_).c_str(), type_name(type_).c_str());
    return et::Error::NotFound;
  }

  EtDeviceType type_ = EtDeviceType::CPU;
  std::atomic<et::DeviceAllocator*> current_{nullptr};
  std::atomic<uint64_t> strays_{0};
  std::vector<et::DeviceAllocator*> stack_;
  std::mutex owners_mu_;
  std::unordered_map<const void*, et::DeviceAllocator*> owners_;  // live pointer -> allocator
};

// Guards registration and every router's stack. The routers are made on first use and never
// destroyed: ExecuTorch's registry keeps pointing at them until the process ends, and a scope
// may be made during static initialisation.
std::mutex& registration_mutex() {
  static std::mutex* m = new std::mutex;
  return *m;
}
std::array<Router, kExecutorchDeviceTypes>& routers() {
  static auto* all = new std::array<Router, kExecutorchDeviceTypes>;
  return *all;
}
std::array<bool, kExecutorchDeviceTypes> g_registered{};

Error check_type(EtDeviceType type) {
  const int value = static_cast<int>(type);
  if (value < 0 || static_cast<size_t>(value) >= kExecutorchDeviceTypes) {
    return Error(ErrorCode::InvalidArgument,
                 "device type " + std::to_string(value) + " is outside ExecuTorch's registry (" +
                     std::to_string(kExecutorchDeviceTypes) + " device types)");
  }
  if (type == EtDeviceType::CPU) {
    return Error(ErrorCode::InvalidArgument,
                 "cpu has no device allocator in ExecuTorch (host memory comes from the "
                 "MemoryManager's allocators)");
  }
  return Error::success();
}

// Under registration_mutex().
Error ensure_registered_locked(EtDeviceType type) {
  DEVPLAN_RETURN_IF_ERROR(check_type(type));
  const size_t slot = static_cast<size_t>(type);
  if (g_registered[slot]) return Error::success();
  et::DeviceAllocator* present = et::get_device_allocator(type);
  if (present != nullptr) {
    return Error(ErrorCode::AlreadyRegistered,
                 "ExecuTorch's registry already holds an allocator for " + type_name(type) +
                     " that is not devplan's (registered before devplan's first scope); "
                     "ExecuTorch cannot unregister it, so devplan cannot route " +
                     type_name(type) + " allocations in this process");
  }
  routers()[slot].init(type);
  et::register_device_allocator(&routers()[slot]);
  g_registered[slot] = true;
  return Error::success();
}

}  // namespace

Error ensure_router_registered(EtDeviceType type) {
  std::lock_guard<std::mutex> lock(registration_mutex());
  return ensure_registered_locked(type);
}

bool router_registered(EtDeviceType type) {
  if (!check_type(type).ok()) return false;
  std::lock_guard<std::mutex> lock(registration_mutex());
  return g_registered[static_cast<size_t>(type)] &&
         et::get_device_allocator(type) == &routers()[static_cast<size_t>(type)];
}

et::DeviceAllocator* installed_allocator(EtDeviceType type) {
  if (!check_type(type).ok()) return nullptr;
  return routers()[static_cast<size_t>(type)].current();
}

uint64_t calls_without_allocator(EtDeviceType type) {
  if (!check_type(type).ok()) return 0;
  return routers()[static_cast<size_t>(type)].strays();
}

ScopedExecutorchAllocator::ScopedExecutorchAllocator(et::DeviceAllocator& allocator)
    : allocator_(&allocator), type_(allocator.device_type()) {
  std::lock_guard<std::mutex> lock(registration_mutex());
  status_ = ensure_registered_locked(type_);
  if (status_.ok()) routers()[static_cast<size_t>(type_)].push(allocator_);
}

ScopedExecutorchAllocator::~ScopedExecutorchAllocator() {
  if (!status_.ok()) return;
  std::lock_guard<std::mutex> lock(registration_mutex());
  routers()[static_cast<size_t>(type_)].remove(allocator_);
}

}  // namespace devplan::executorch_testing
