#include <harness/services/simulation.h>

#include <optional>

#include <harness/engine/data_files.h>
#include <mocks/host_access_fault_report.h>
#include <mocks/simulated_device_backend.h>
#include <runtime_ext/writer/program_builder.h>

namespace devplan::harness {
namespace {

bool selected(const std::vector<std::string>& methods, const std::string& name) {
  if (methods.empty()) return true;
  for (const std::string& m : methods) {
    if (m == name) return true;
  }
  return false;
}

}  // namespace

Result<std::vector<uint8_t>> apply_placements(
    const Program& program, const std::vector<std::string>& methods,
    const std::vector<std::pair<uint32_t, Device>>& placements) {
  std::vector<MethodPlan> plans;
  std::vector<bool> used(placements.size(), false);
  for (size_t m = 0; m < program.num_methods(); ++m) {
    DEVPLAN_ASSIGN_OR_RETURN(const MethodPlan* original, program.method_plan_at(m));
    MethodPlan plan = *original;
    if (selected(methods, plan.name)) {
      for (size_t p = 0; p < placements.size(); ++p) {
        const uint32_t buffer = placements[p].first;
        const Device device = placements[p].second;
        if (buffer >= plan.buffer_devices.size()) continue;
        used[p] = true;
        plan.buffer_devices[buffer] = device;
        for (ValueInfo& v : plan.values) {
          if (v.tag == ValueTag::Tensor && v.tensor.is_planned() &&
              v.tensor.buffer_index == buffer) {
            v.tensor.device = device;
            v.tensor.legacy_host = false;
            v.tensor.other_buffer_device.reset();
          }
        }
      }
    }
    plans.push_back(std::move(plan));
  }
  for (size_t p = 0; p < placements.size(); ++p) {
    if (!used[p]) {
      return Error(ErrorCode::InvalidArgument, "--place " + std::to_string(placements[p].first) +
                                                   "=" + placements[p].second.to_string() +
                                                   ": no selected method has buffer " +
                                                   std::to_string(placements[p].first));
    }
  }
  ProgramBuilder builder;
  for (const MethodPlan& plan : plans) builder.add_method(plan);
  return builder.build();
}

Result<SimulationResult> simulate_program(const ProgramImage& image,
                                          const SimulationOptions& options, bool* program_error) {
  bool ignored = false;
  if (program_error == nullptr) program_error = &ignored;
  *program_error = false;
  ProgramImage program_bytes = image;  // shares the bytes (a mapped file stays mapped)
  if (!options.placements.empty()) {
    Result<Program> loaded = image.program();
    if (!loaded.ok()) {
      *program_error = true;
      return loaded.error();
    }
    const Program& program = *loaded;
    for (const std::string& wanted : options.methods) {
      if (!program.method_plan(wanted).ok()) {
        return Error(ErrorCode::NotFound, "the program has no method '" + wanted + "'");
      }
    }
    DEVPLAN_ASSIGN_OR_RETURN(program_bytes,
                             apply_placements(program, options.methods, options.placements));
  }
  const bool executorch = options.runtime == RuntimeKind::Executorch;

  DEVPLAN_ASSIGN_OR_RETURN(std::unique_ptr<DeviceEnvironment> env,
                           DeviceEnvironment::create(options.device, options.unload_bug));
  TrackingDeviceAllocator& tracking = *env->tracking();
  SessionOptions session_options;
  session_options.max_host_bytes = options.ceilings.max_host_buffer_bytes;
  session_options.placeholder_backends = true;  // the load path only
  DEVPLAN_ASSIGN_OR_RETURN(session_options.data_files, map_data_files(options.data_paths));
  tracking.set_backing(options.backing);
  tracking.set_max_allocation_bytes(options.ceilings.device_allocation_limit(tracking.backing()));
  if (options.fail_alloc > 0) tracking.fail_allocation_at(options.fail_alloc);
  for (const auto& [where, capacity] : options.capacities) {
    if (where.is_cpu()) {
      if (executorch) {
        return Error(ErrorCode::InvalidArgument,
                     "--capacity " + where.to_string() +
                         ": not supported with --runtime executorch (ExecuTorch's Module allocates "
                         "host planned memory itself, with no hook to limit it)");
      }
      session_options.max_host_bytes = capacity;
    } else {
      DEVPLAN_RETURN_IF_ERROR(tracking.set_capacity(where.index, capacity));
    }
  }

  // A host access to unbacked device memory (ExecuTorch memcpys initial values into device
  // buffers) faults; name the block before the process dies of it.
  std::optional<ScopedHostAccessFaultReport> fault_report;
  if (tracking.backing() == DeviceBacking::Unbacked) fault_report.emplace(&tracking);
  SimulationResult result;
  result.runtime = options.runtime;
  result.device_memory = env->device_memory();
  result.device_map = env->device_map().describe();
  {
    Result<std::unique_ptr<EngineSession>> opened =
        open_session(options.runtime, std::move(program_bytes), *env, session_options);
    if (!opened.ok()) {
      *program_error = true;
      return opened.error();
    }
    std::unique_ptr<EngineSession> session = std::move(opened).value();
    const std::vector<std::string> names = session->method_names();
    for (const std::string& wanted : options.methods) {
      if (!selected(names, wanted)) {
        return Error(ErrorCode::NotFound, "the program has no method '" + wanted + "'");
      }
    }
    for (const std::string& name : names) {
      if (!selected(options.methods, name)) continue;
      MethodOutcome outcome;
      outcome.name = name;
      outcome.status = session->load_method(name);
      outcome.buffers = session->buffers(name);
      if (outcome.status.ok()) outcome.stand_ins = session->stand_ins(name);
      result.methods.push_back(std::move(outcome));
    }
    for (const std::string& name : names) {
      if (session->is_method_loaded(name)) (void)session->unload_method(name);
    }
  }  // the engine's Module is destroyed here; whatever is still live now leaked

  result.allocations = env->ledger();
  result.events = env->events();
  result.leaks = env->leaks();
  result.leak_lines = env->leak_lines();
  result.failed_allocations = tracking.failed_allocations();
  result.misuse = tracking.misuse();
  for (int index = 0; index <= kMaxDeviceIndex; ++index) {
    DeviceAllocationStats s = tracking.stats(static_cast<DeviceIndex>(index));
    if (s.total_allocations == 0 && s.failed_allocations == 0) continue;
    result.stats.push_back(s);
    result.stats_devices.push_back(static_cast<DeviceIndex>(index));
  }
  // The simulated device frees its own backing memory, leaked blocks included, with `env`.
  return result;
}

}  // namespace devplan::harness
