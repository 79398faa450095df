#include <harness/engine/executorch/executorch_bridge.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/platform/platform.h>
#include <executorch/runtime/platform/runtime.h>

#include <executorch_testing/executorch_allocator_adapter.h>
#include <executorch_testing/executorch_allocator_registration.h>
#include <harness/engine/executorch/executorch_device_backend.h>
#include <harness/engine/executorch/executorch_hooks.h>
#include <runtime_ext/core/allocation_owner.h>

namespace devplan::harness::executorch_bridge {
namespace et = ::executorch::runtime;
namespace testing_et = ::devplan::executorch_testing;

namespace {

std::mutex g_mutex;  // guards everything below that is not atomic
std::vector<ExpectedBuffer> g_expected;
std::atomic<int> g_placeholders_enabled{0};

// ExecuTorch's log lines: errors are kept for the harness's messages; a fatal line (an abort
// follows) also goes straight to stderr, so a child process that dies still says why.
void emit_log(et_timestamp_t, et_pal_log_level_t level, const char*, const char*, size_t,
              const char* message, size_t length) {
  static const bool verbose = std::getenv("DEVPLAN_EXECUTORCH_LOG") != nullptr;
  std::string text(message, length);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  if (verbose || level == kFatal) {
    const std::string line =
        std::string("executorch ") + static_cast<char>(level) + ": " + text + "\n";
    ssize_t ignored = ::write(2, line.data(), line.size());
    (void)ignored;
  }
  if (level == kError || level == kFatal) record_error(text);
}

// The devplan allocator ExecuTorch's CUDA allocations reach (through executorch_testing's
// router and adaptor): forwards to the installed target, labelling each allocation with its
// owner.
class OwnerClaimingAllocator final : public DeviceAllocator {
 public:
  Result<void*> allocate(size_t nbytes, DeviceIndex index, size_t alignment) override {
    DeviceAllocator* target = current_target();
    if (target == nullptr) return no_target();
    std::string owner = claim_owner(nbytes, index);
    Result<void*> r = [&] {
      ScopedAllocationOwner scoped(owner);
      return target->allocate(nbytes, index, alignment);
    }();
    if (!r.ok()) unclaim(owner);
    return r;
  }
  void deallocate(void* ptr, DeviceIndex index) override {
    DeviceAllocator* target = current_target();
    if (target != nullptr) target->deallocate(ptr, index);
  }
  Error copy_host_to_device(void* dst, const void* src, size_t nbytes, DeviceIndex index) override {
    DeviceAllocator* target = current_target();
    if (target == nullptr) return no_target();
    return target->copy_host_to_device(dst, src, nbytes, index);
  }
  Error copy_device_to_host(void* dst, const void* src, size_t nbytes, DeviceIndex index) override {
    DeviceAllocator* target = current_target();
    if (target == nullptr) return no_target();
    return target->copy_device_to_host(dst, src, nbytes, index);
  }
  DeviceType device_type() const override { return DeviceType::CUDA; }

 private:
  static Error no_target() {
    return Error(ErrorCode::NotFound, "no device allocator installed for cuda");
  }

  static std::string claim_owner(size_t nbytes, DeviceIndex index) {
    std::lock_guard<std::mutex> lock(g_mutex);
    std::string fallback;
    for (ExpectedBuffer& b : g_expected) {
      if (fallback.empty()) fallback = b.owner.substr(0, b.owner.find('/')) + "/?";
      if (!b.claimed && b.size == nbytes && b.device_index == index) {
        b.claimed = true;
        return b.owner;
      }
    }
    return fallback.empty() ? std::string("-") : fallback;
  }

  static void unclaim(const std::string& owner) {
    std::lock_guard<std::mutex> lock(g_mutex);
    for (ExpectedBuffer& b : g_expected) {
      if (b.claimed && b.owner == owner) {
        b.claimed = false;
        return;
      }
    }
  }
};

// The ExecuTorch allocator over it; a failed call's line goes to the error log.
testing_et::ExecutorchAllocatorAdapter& executorch_cuda_allocator() {
  static OwnerClaimingAllocator claiming;
  static testing_et::ExecutorchAllocatorAdapter* adapter = [] {
    auto* a = new testing_et::ExecutorchAllocatorAdapter(claiming);  // lives as long as the process
    a->set_error_sink(&record_error);
    return a;
  }();
  return *adapter;
}

// Stands in for a backend that neither engine has (simulate's load path only).
class PlaceholderBackend final : public et::BackendInterface {
 public:
  explicit PlaceholderBackend(std::string id) : id_(std::move(id)) {}
  const std::string& id() const { return id_; }

  bool is_available() const override { return true; }
  et::Result<et::DelegateHandle*> init(et::BackendInitContext&, et::FreeableBuffer* processed,
                                       et::ArrayRef<et::CompileSpec>) const override {
    if (g_placeholders_enabled.load() == 0) {
      record_error("Backend " + id_ +
                   " is not registered (devplan's placeholder for it stands "
                   "in only under simulate)");
      return et::Error::NotFound;
    }
    if (processed != nullptr) processed->Free();
    return reinterpret_cast<et::DelegateHandle*>(const_cast<PlaceholderBackend*>(this));
  }
  et::Error execute(et::BackendExecutionContext&, et::DelegateHandle*,
                    et::Span<et::EValue*>) const override {
    record_error("delegate '" + id_ +
                 "' has no backend here: a placeholder loaded it and "
                 "cannot execute it");
    return et::Error::NotSupported;
  }

 private:
  std::string id_;
};

std::deque<PlaceholderBackend>& placeholders() {
  static std::deque<PlaceholderBackend> all;  // stable addresses; names live as long
  return all;
}

}  // namespace

void install() {
  static std::once_flag once;
  std::call_once(once, [] {
    et::register_pal(et::PalImpl::create(&emit_log, __FILE__));
    et::runtime_init();
    // The registration itself happens once, safely, in executorch_testing's router.
    const Error registered = testing_et::ensure_router_registered(et::etensor::DeviceType::CUDA);
    if (!registered.ok()) record_error("devplan: " + registered.message());
    register_executorch_device_backend();
  });
}

ScopedBridgeTarget::ScopedBridgeTarget(DeviceAllocator* target,
                                       const SimulatedDeviceBackend::DeviceElementwise* on_device)
    : previous_(exchange_target(target)),
      previous_on_device_(exchange_device_elementwise(on_device)),
      routed_(
          std::make_unique<testing_et::ScopedExecutorchAllocator>(executorch_cuda_allocator())) {
  if (!routed_->status().ok()) record_error("devplan: " + routed_->status().message());
}
ScopedBridgeTarget::~ScopedBridgeTarget() {
  routed_.reset();
  exchange_target(previous_);
  exchange_device_elementwise(previous_on_device_);
}

void expect_buffers(std::vector<ExpectedBuffer> buffers) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_expected = std::move(buffers);
}

std::vector<ExpectedBuffer> take_expected_buffers() {
  std::lock_guard<std::mutex> lock(g_mutex);
  std::vector<ExpectedBuffer> out;
  out.swap(g_expected);
  return out;
}

Error ensure_placeholder_backend(const std::string& id) {
  install();
  if (et::get_backend_class(id.c_str()) != nullptr) return Error::success();
  std::deque<PlaceholderBackend>& all = placeholders();
  all.emplace_back(id);
  const et::Error e = et::register_backend(et::Backend{all.back().id().c_str(), &all.back()});
  if (e != et::Error::Ok) {
    all.pop_back();
    return Error(static_cast<ErrorCode>(static_cast<uint32_t>(e)),
                 "cannot register a placeholder for backend '" + id +
                     "' in ExecuTorch's backend table: " + take_error_log());
  }
  return Error::success();
}

bool is_placeholder_backend(const std::string& id) {
  install();
  const et::BackendInterface* backend = et::get_backend_class(id.c_str());
  for (const PlaceholderBackend& p : placeholders()) {
    if (backend == &p) return true;
  }
  return false;
}

ScopedPlaceholders::ScopedPlaceholders() { ++g_placeholders_enabled; }
ScopedPlaceholders::~ScopedPlaceholders() { --g_placeholders_enabled; }

}  // namespace devplan::harness::executorch_bridge
