#include <harness/commands/device_environment.h>

#ifdef DEVPLAN_HAVE_CUDA
#include <runtime_ext/cuda/cuda_add_backend.h>
#include <runtime_ext/cuda/cuda_device_count.h>
#include <runtime_ext/cuda/cuda_registration.h>
#endif

namespace devplan::harness {

Result<DeviceKind> parse_device_kind(const std::string& text) {
  if (text == "simulated") return DeviceKind::Simulated;
  if (text == "cuda") return DeviceKind::Cuda;
  return Error(ErrorCode::InvalidArgument,
               "--device expects simulated or cuda, got '" + text + "'");
}

Result<std::unique_ptr<DeviceEnvironment>> DeviceEnvironment::create(DeviceKind kind,
                                                                     UnloadBug bug) {
  std::unique_ptr<DeviceEnvironment> env(new DeviceEnvironment());
  env->kind_ = kind;
  DeviceAllocator* upstream = nullptr;
  Backend* add_backend = nullptr;
  if (kind == DeviceKind::Simulated) {
    env->tracking_ = std::make_unique<TrackingDeviceAllocator>(DeviceType::CUDA);
    // A ceiling per allocation, so a hostile program is a clean MemoryAllocationFailed.
    env->tracking_->set_max_allocation_bytes(uint64_t{1} << 32);
    env->simulated_backend_ =
        std::make_unique<SimulatedDeviceBackend>(SimulatedDeviceBackend::Op::Add);
    upstream = env->tracking_.get();
    add_backend = env->simulated_backend_.get();
  } else {
#ifdef DEVPLAN_HAVE_CUDA
    const CudaDeviceCount devices = cuda_device_count();
    if (!devices.ok() || devices.count == 0) {
      return Error(ErrorCode::NotSupported, "--device cuda: no usable GPU: " + devices.describe());
    }
    upstream = &process_cuda_allocator();
    add_backend = &process_cuda_add_backend();
#else
    return Error(ErrorCode::NotSupported,
                 "--device cuda: this devplan was built without CUDA (configure with "
                 "-DDEVPLAN_WITH_CUDA=ON on a machine with the CUDA toolkit)");
#endif
  }
  env->recording_ = std::make_unique<RecordingDeviceAllocator>(upstream);
  env->registered_ = env->recording_.get();
  if (bug != UnloadBug::None) {
    env->unload_bug_ = std::make_unique<UnloadBugAllocator>(env->recording_.get(), bug);
    env->registered_ = env->unload_bug_.get();
  }
  DEVPLAN_RETURN_IF_ERROR(env->allocators_.register_allocator(env->registered_));
  DEVPLAN_RETURN_IF_ERROR(
      env->backends_.register_backend(SimulatedDeviceBackend::kAddBackendId, add_backend));
  if (kind == DeviceKind::Simulated) {
    env->devplan_backend_ =
        std::make_unique<SimulatedDeviceBackend>(SimulatedDeviceBackend::Op::FromProcessed);
    DEVPLAN_RETURN_IF_ERROR(env->backends_.register_backend(
        SimulatedDeviceBackend::kDevplanBackendId, env->devplan_backend_.get()));
  }
  return env;
}

ModuleOptions DeviceEnvironment::module_options() const {
  ModuleOptions options;
  options.runtime.allocators = &allocators_;
  options.runtime.backends = &backends_;
  options.max_host_buffer_bytes = uint64_t{1} << 32;
  return options;
}

std::vector<AllocationRecord> DeviceEnvironment::ledger() const {
  if (tracking_) return tracking_->ledger();
  return ledger_from_events(recording_->events());
}

std::vector<AllocationRecord> DeviceEnvironment::leaks() const {
  if (tracking_) return tracking_->live_allocations();
  return live_records(ledger());
}

std::vector<std::string> DeviceEnvironment::leak_lines() const {
  if (tracking_) return tracking_->leak_report_lines();
  std::vector<std::string> lines;
  for (const AllocationRecord& r : leaks()) lines.push_back(format_allocation(r));
  return lines;
}

std::vector<std::string> DeviceEnvironment::misuse_lines() const {
  if (tracking_) return tracking_->misuse_report_lines();
  std::vector<AllocationEvent> unknown;
  (void)ledger_from_events(recording_->events(), &unknown);
  std::vector<std::string> lines;
  for (const AllocationEvent& e : unknown) {
    lines.push_back("free of unknown pointer on " + e.device.to_string());
  }
  return lines;
}

}  // namespace devplan::harness
