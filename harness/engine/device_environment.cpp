#include <harness/engine/device_environment.h>

#include <harness/engine/child_process.h>

#ifdef DEVPLAN_HAVE_CUDA
#include <runtime_ext/cuda/cuda_device_count.h>
#include <runtime_ext/cuda/cuda_elementwise_binary.h>
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
    return Error(ErrorCode::InvalidArgument, "device indices must not be negative");
  }
  for (const auto& [p, q] : entries) {
    if (p != planned) continue;
    if (q == present) return Error::success();
    return Error(ErrorCode::InvalidArgument, from.to_string() + " is mapped twice (to " +
                                                 Device(DeviceType::CUDA, q).to_string() + " and " +
                                                 Device(DeviceType::CUDA, present).to_string() +
                                                 ")");
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

std::string DeviceSetup::describe() const {
  if (kind == DeviceKind::Simulated) return "simulated";
  return map.empty() ? "cuda" : "cuda (device map " + map.describe() + ")";
}

std::string DeviceSetup::arguments() const {
  if (kind == DeviceKind::Simulated) return "";
  std::string text = " --device cuda";
  for (const auto& [planned, present] : map.entries) {
    text += " --device-map " + Device(DeviceType::CUDA, planned).to_string() + "=" +
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

Result<std::unique_ptr<RealDeviceMemory>> RealDeviceMemory::open(const DeviceSetup& setup,
                                                                 bool wrap_absent) {
  std::unique_ptr<RealDeviceMemory> memory(new RealDeviceMemory());
  memory->map_ = setup.map;
  memory->given_ = setup.map;
  DeviceAllocator* base = setup.memory;
  if (base == nullptr) {
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
    if (wrap_absent) {
      memory->wrapped_from_ = devices.count;
      for (int index = devices.count; index <= kMaxDeviceIndex; ++index) {
        (void)memory->map_.add(static_cast<DeviceIndex>(index),
                               static_cast<DeviceIndex>(index % devices.count));
      }
    }
    base = &process_cuda_allocator();
    memory->runs_kernels_ = true;
#else
    (void)wrap_absent;
    return Error(ErrorCode::NotSupported,
                 "--device cuda: this devplan was built without CUDA (configure with "
                 "-DDEVPLAN_WITH_CUDA=ON on a machine with the CUDA toolkit)");
#endif
  }
  memory->top_ = base;
  if (!memory->map_.empty()) {
    memory->mapping_ = std::make_unique<IndexMappingDeviceAllocator>(base);
    for (const auto& [planned, present] : memory->map_.entries) {
      DEVPLAN_RETURN_IF_ERROR(memory->mapping_->map(planned, present));
    }
    memory->top_ = memory->mapping_.get();
  }
  return memory;
}

Error check_devices(const DeviceSetup& setup) {
  if (setup.kind == DeviceKind::Simulated) return Error::success();
  if (setup.memory != nullptr) return RealDeviceMemory::open(setup).error();
  ChildOutcome child = run_in_child([&](std::string* out) {
    const Error opened = RealDeviceMemory::open(setup).error();
    *out =
        opened.ok() ? "" : std::to_string(static_cast<int>(opened.code())) + " " + opened.message();
    return opened.ok() ? 0 : 1;
  });
  if (child.started && !child.signaled() && child.exit_code == 0) return Error::success();
  const size_t space = child.out.find(' ');
  if (child.exit_code == 1 && space != std::string::npos) {
    return Error(static_cast<ErrorCode>(std::stoi(child.out.substr(0, space))),
                 child.out.substr(space + 1));
  }
  return Error(ErrorCode::NotSupported, "--device cuda: the GPU check failed: " + child.describe());
}

std::string RealDeviceMemory::describe() const {
  std::string text;
  if (!given_.empty()) text = "device map " + given_.describe();
  if (wrapped_from_ > 0) {
    if (!text.empty()) text += "; ";
    text += Device(DeviceType::CUDA, static_cast<DeviceIndex>(wrapped_from_)).to_string() +
            " and up run on cuda:(index % " + std::to_string(wrapped_from_) + ")";
  }
  return text.empty() ? "cuda" : "cuda (" + text + ")";
}

Result<std::unique_ptr<DeviceEnvironment>> DeviceEnvironment::create(const DeviceSetup& setup,
                                                                     UnloadBug bug,
                                                                     ComputeBug compute_bug) {
  std::unique_ptr<DeviceEnvironment> env(new DeviceEnvironment());
  if (setup.kind == DeviceKind::Simulated) {
    if (!setup.map.empty()) {
      return Error(ErrorCode::InvalidArgument,
                   "--device-map needs --device cuda (the simulated devices have every index "
                   "from cuda:0 to cuda:127)");
    }
    env->tracking_ = std::make_unique<TrackingDeviceAllocator>(DeviceType::CUDA);
    // A ceiling per allocation, so a hostile program is a clean MemoryAllocationFailed.
    env->tracking_->set_max_allocation_bytes(uint64_t{1} << 32);
  } else {
    env->kind_ = DeviceKind::Cuda;
    DEVPLAN_ASSIGN_OR_RETURN(env->memory_, RealDeviceMemory::open(setup));
    env->tracking_ = std::make_unique<TrackingDeviceAllocator>(env->memory_->allocator());
#ifdef DEVPLAN_HAVE_CUDA
    if (env->memory_->runs_kernels()) {
      const RealDeviceMemory* memory = env->memory_.get();
      env->on_device_ = [memory](SimulatedDeviceBackend::Op op, const Tensor& a, const Tensor& b,
                                 const Tensor& out, Device device) -> std::optional<Error> {
        if (!cuda_elementwise_binary_handles(a, b, out)) return std::nullopt;
        return cuda_elementwise_binary(op == SimulatedDeviceBackend::Op::Mul
                                           ? ElementwiseBinaryOp::Mul
                                           : ElementwiseBinaryOp::Add,
                                       a, b, out, memory->target(device.index));
      };
    }
#endif
  }
  DEVPLAN_RETURN_IF_ERROR(env->finish(bug, compute_bug));
  return env;
}

Error DeviceEnvironment::finish(UnloadBug bug, ComputeBug compute_bug) {
  recording_ = std::make_unique<RecordingDeviceAllocator>(tracking_.get());
  registered_ = recording_.get();
  if (bug != UnloadBug::None) {
    unload_bug_ = std::make_unique<UnloadBugAllocator>(recording_.get(), bug);
    registered_ = unload_bug_.get();
  }
  DEVPLAN_RETURN_IF_ERROR(allocators_.register_allocator(registered_));
  if (compute_bug != ComputeBug::None) {
    compute_bug_ = std::make_unique<ComputeBugInjector>(compute_bug, registered_, on_device_);
    on_device_ = compute_bug_->hook();
  }
  add_backend_ =
      std::make_unique<SimulatedDeviceBackend>(SimulatedDeviceBackend::Op::Add, on_device_);
  devplan_backend_ = std::make_unique<SimulatedDeviceBackend>(
      SimulatedDeviceBackend::Op::FromProcessed, on_device_);
  DEVPLAN_RETURN_IF_ERROR(
      backends_.register_backend(SimulatedDeviceBackend::kAddBackendId, add_backend_.get()));
  return backends_.register_backend(SimulatedDeviceBackend::kDevplanBackendId,
                                    devplan_backend_.get());
}

const DeviceMap& DeviceEnvironment::device_map() const {
  static const DeviceMap kNone;
  return memory_ ? memory_->map() : kNone;
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
