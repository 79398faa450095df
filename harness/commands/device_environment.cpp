#include <harness/commands/device_environment.h>

#ifdef DEVPLAN_HAVE_CUDA
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

Error DeviceMap::add(DeviceIndex planned, DeviceIndex present) {
  const Device from(DeviceType::CUDA, planned);
  if (planned < 0 || present < 0) {
    return Error(ErrorCode::InvalidArgument, "--device-map: device indices must not be negative");
  }
  for (const auto& [p, q] : entries) {
    if (p != planned) continue;
    if (q == present) return Error::success();
    return Error(ErrorCode::InvalidArgument,
                 "--device-map: " + from.to_string() + " is mapped twice (to " +
                     Device(DeviceType::CUDA, q).to_string() + " and " +
                     Device(DeviceType::CUDA, present).to_string() + ")");
  }
  entries.emplace_back(planned, present);
  return Error::success();
}

std::string DeviceMap::describe() const {
  std::string text;
  for (const auto& [planned, present] : entries) {
    if (!text.empty()) text += ", ";
    text += Device(DeviceType::CUDA, planned).to_string() + "=" +
            Device(DeviceType::CUDA, present).to_string();
  }
  return text;
}

Result<std::pair<DeviceIndex, DeviceIndex>> parse_device_map_entry(const std::string& text) {
  const Error usage(ErrorCode::InvalidArgument,
                    "--device-map expects PLANNED=PRESENT, two CUDA devices like cuda:1=cuda:0, "
                    "got '" +
                        text + "'");
  const size_t eq = text.find('=');
  if (eq == std::string::npos) return usage;
  Result<Device> planned = parse_device(text.substr(0, eq));
  Result<Device> present = parse_device(text.substr(eq + 1));
  if (!planned.ok() || !present.ok() || planned->type != DeviceType::CUDA ||
      present->type != DeviceType::CUDA) {
    return usage;
  }
  return std::make_pair(planned->index, present->index);
}

Result<std::unique_ptr<DeviceEnvironment>> DeviceEnvironment::create(const DeviceSetup& setup,
                                                                     UnloadBug bug) {
  if (setup.kind == DeviceKind::Simulated) {
    if (!setup.map.empty()) {
      return Error(ErrorCode::InvalidArgument,
                   "--device-map needs --device cuda (the simulated devices have every index "
                   "from cuda:0 to cuda:127)");
    }
    std::unique_ptr<DeviceEnvironment> env(new DeviceEnvironment());
    env->tracking_ = std::make_unique<TrackingDeviceAllocator>(DeviceType::CUDA);
    // A ceiling per allocation, so a hostile program is a clean MemoryAllocationFailed.
    env->tracking_->set_max_allocation_bytes(uint64_t{1} << 32);
    DEVPLAN_RETURN_IF_ERROR(env->finish(bug));
    return env;
  }
  if (setup.memory != nullptr) return create_over(setup.memory, setup.map, bug);
#ifdef DEVPLAN_HAVE_CUDA
  const CudaDeviceCount devices = cuda_device_count();
  if (!devices.ok() || devices.count == 0) {
    return Error(ErrorCode::NotSupported, "--device cuda: no usable GPU: " + devices.describe());
  }
  for (const auto& [planned, present] : setup.map.entries) {
    if (present >= devices.count) {
      return Error(ErrorCode::InvalidArgument,
                   "--device-map " + Device(DeviceType::CUDA, planned).to_string() + "=" +
                       Device(DeviceType::CUDA, present).to_string() + ": " + devices.describe() +
                       " present");
    }
  }
  return create_over(&process_cuda_allocator(), setup.map, bug);
#else
  return Error(ErrorCode::NotSupported,
               "--device cuda: this devplan was built without CUDA (configure with "
               "-DDEVPLAN_WITH_CUDA=ON on a machine with the CUDA toolkit)");
#endif
}

Result<std::unique_ptr<DeviceEnvironment>> DeviceEnvironment::create_over(DeviceAllocator* device,
                                                                          const DeviceMap& map,
                                                                          UnloadBug bug) {
  std::unique_ptr<DeviceEnvironment> env(new DeviceEnvironment());
  env->kind_ = DeviceKind::Cuda;
  env->map_ = map;
  DeviceAllocator* memory = device;
  if (!map.empty()) {
    env->mapping_ = std::make_unique<IndexMappingDeviceAllocator>(device);
    for (const auto& [planned, present] : map.entries) {
      DEVPLAN_RETURN_IF_ERROR(env->mapping_->map(planned, present));
    }
    memory = env->mapping_.get();
  }
  env->tracking_ = std::make_unique<TrackingDeviceAllocator>(memory);
  DEVPLAN_RETURN_IF_ERROR(env->finish(bug));
  return env;
}

Error DeviceEnvironment::finish(UnloadBug bug) {
  recording_ = std::make_unique<RecordingDeviceAllocator>(tracking_.get());
  registered_ = recording_.get();
  if (bug != UnloadBug::None) {
    unload_bug_ = std::make_unique<UnloadBugAllocator>(recording_.get(), bug);
    registered_ = unload_bug_.get();
  }
  DEVPLAN_RETURN_IF_ERROR(allocators_.register_allocator(registered_));
  add_backend_ = std::make_unique<SimulatedDeviceBackend>(SimulatedDeviceBackend::Op::Add);
  devplan_backend_ =
      std::make_unique<SimulatedDeviceBackend>(SimulatedDeviceBackend::Op::FromProcessed);
  DEVPLAN_RETURN_IF_ERROR(
      backends_.register_backend(SimulatedDeviceBackend::kAddBackendId, add_backend_.get()));
  return backends_.register_backend(SimulatedDeviceBackend::kDevplanBackendId,
                                    devplan_backend_.get());
}

ModuleOptions DeviceEnvironment::module_options() const {
  ModuleOptions options;
  options.runtime.allocators = &allocators_;
  options.runtime.backends = &backends_;
  options.max_host_buffer_bytes = uint64_t{1} << 32;
  return options;
}

std::string DeviceEnvironment::device_memory() const {
  if (kind_ == DeviceKind::Cuda) return "cuda";
  return device_backing_name(tracking_->backing());
}

}  // namespace devplan::harness
