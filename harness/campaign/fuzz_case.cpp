#include <harness/campaign/fuzz_case.h>

#include <algorithm>
#include <memory>
#include <numeric>

#include <harness/campaign/differential_check.h>
#include <harness/campaign/output_determinism.h>
#include <harness/scenario/corruption.h>
#include <harness/scenario/writer.h>
#include <harness/services/probe.h>
#include <mocks/simulated_device_backend.h>
#include <mocks/tracking_device_allocator.h>
#include <mocks/unload_bug_allocator.h>
#include <runtime_ext/core/text_join.h>
#include <runtime_ext/module/module.h>
#include <runtime_ext/planning/split_mix64.h>

namespace devplan::harness {
namespace {

// The devices one Module runs against: simulated, or the tracking stack over real memory.
struct SimulatedDevices {
  std::unique_ptr<TrackingDeviceAllocator> owned_tracking;
  TrackingDeviceAllocator& tracking;
  UnloadBugAllocator registered;  // in front of `tracking`: the injected bug, if any
  DeviceAllocatorRegistry allocators;
  SimulatedDeviceBackend add{SimulatedDeviceBackend::Op::Add};
  BackendRegistry backends;
  ModuleOptions options;

  AllocationTotals* totals;

  SimulatedDevices(UnloadBug bug, AllocationTotals* totals_out, DeviceAllocator* memory)
      : owned_tracking(memory != nullptr ? std::make_unique<TrackingDeviceAllocator>(memory)
                                         : std::make_unique<TrackingDeviceAllocator>()),
        tracking(*owned_tracking),
        registered(&tracking, bug),
        totals(totals_out) {
    tracking.set_max_allocation_bytes(uint64_t{1} << 30);
    (void)allocators.register_allocator(&registered);
    (void)backends.register_backend(kScenarioDelegateBackend, &add);
    options.runtime.allocators = &allocators;
    options.runtime.backends = &backends;
  }
  ~SimulatedDevices() {
    if (totals == nullptr) return;
    for (const AllocationRecord& a : tracking.ledger()) {
      ++totals->allocations;
      totals->frees += a.live ? 0 : 1;
      totals->allocated_bytes += a.size;
    }
  }
  SimulatedDevices(const SimulatedDevices&) = delete;
  SimulatedDevices& operator=(const SimulatedDevices&) = delete;
};

std::optional<FuzzFinding> finding(const char* check, std::string message) {
  return FuzzFinding{check, std::move(message)};
}

std::string join_lines(const std::vector<std::string>& lines) { return join(lines, "; "); }

std::optional<FuzzFinding> check_round_trip(const ProgramScenario& s, const Program& program) {
  for (const MethodScenario& m : s.methods) {
    Result<MethodMeta> meta = program.method_meta(m.name);
    if (!meta.ok())
      return finding("round-trip", "method " + m.name + ": " + meta.error().to_string());
    if (meta->num_memory_planned_buffers() != m.buffers.size()) {
      return finding("round-trip", "method " + m.name + ": " +
                                       std::to_string(meta->num_memory_planned_buffers()) +
                                       " buffers read back, " + std::to_string(m.buffers.size()) +
                                       " written");
    }
    for (size_t b = 0; b < m.buffers.size(); ++b) {
      const int64_t size = *meta->memory_planned_buffer_size(b);
      const Device device = *meta->memory_planned_buffer_device(b);
      if (static_cast<uint64_t>(size) != m.buffers[b].size || device != m.buffers[b].device) {
        return finding("round-trip", "method " + m.name + " buffer " + std::to_string(b) +
                                         " read back as " + std::to_string(size) + " B on " +
                                         device.to_string() + ", written " +
                                         std::to_string(m.buffers[b].size) + " B on " +
                                         m.buffers[b].device.to_string());
      }
    }
  }
  return std::nullopt;
}

std::optional<FuzzFinding> check_leaks(const TrackingDeviceAllocator& tracking, const char* check) {
  if (tracking.has_leaks() || tracking.has_misuse()) {
    std::string message;
    if (tracking.has_leaks()) message += "leaked: " + join_lines(tracking.leak_report_lines());
    if (tracking.has_misuse()) {
      message += std::string(message.empty() ? "" : "; ") +
                 "misuse: " + join_lines(tracking.misuse_report_lines());
    }
    return finding(check, message);
  }
  return std::nullopt;
}

std::optional<FuzzFinding> check_lifecycle(const ProgramScenario& s,
                                           const std::shared_ptr<const Program>& program,
                                           SplitMix64& rng, const FuzzCaseOptions& options,
                                           size_t* device_allocations) {
  SimulatedDevices devices(options.unload_bug, options.totals, options.device_memory);
  std::vector<size_t> order(s.methods.size());
  std::iota(order.begin(), order.end(), 0);
  for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
  {
    Module module(program, devices.options);
    for (size_t i : order) {
      const MethodScenario& m = s.methods[i];
      const size_t before = devices.tracking.ledger().size();
      Error e = module.load_method(m.name);
      if (!e.ok()) return finding("placement", "load_method(" + m.name + "): " + e.to_string());
      if (auto f = check_placement(m, module, devices.tracking.ledger(), before)) return f;
      e = (*module.method(m.name))->execute();
      if (!e.ok()) return finding("execute", e.to_string());
    }
    *device_allocations = devices.tracking.ledger().size();
    // Unload a random subset now; the Module's destruction frees the rest.
    for (size_t i : order) {
      if (rng.below(2) == 0) (void)module.unload_method(s.methods[i].name);
    }
  }
  return check_leaks(devices.tracking, "cleanup");
}

std::optional<FuzzFinding> check_fault(const ProgramScenario& s,
                                       const std::shared_ptr<const Program>& program,
                                       size_t device_allocations, SplitMix64& rng,
                                       AllocationTotals* totals, DeviceAllocator* device_memory) {
  if (device_allocations == 0) return std::nullopt;
  const uint64_t k = rng.below(device_allocations) + 1;
  SimulatedDevices devices(UnloadBug::None, totals, device_memory);
  devices.tracking.fail_allocation_at(k);
  {
    Module module(program, devices.options);
    bool failed = false;
    for (const MethodScenario& m : s.methods) {
      Error e = module.load_method(m.name);
      if (e.ok()) continue;
      if (e.code() != ErrorCode::MemoryAllocationFailed) {
        return finding("fault", "allocation " + std::to_string(k) + " failed but " + m.name +
                                    " returned " + e.to_string());
      }
      if (module.is_method_loaded(m.name)) {
        return finding("fault", m.name + " failed to load but is marked loaded");
      }
      failed = true;
    }
    if (!failed) {
      return finding("fault", "allocation " + std::to_string(k) + " of " +
                                  std::to_string(device_allocations) +
                                  " failed but every load succeeded");
    }
    for (const MethodScenario& m : s.methods) {
      if (module.is_method_loaded(m.name)) (void)module.unload_method(m.name);
    }
    if (devices.tracking.live_count() != 0) {
      return finding("fault", "after failing allocation " + std::to_string(k) + ": " +
                                  join_lines(devices.tracking.leak_report_lines()));
    }
    devices.tracking.clear_faults();
    for (const MethodScenario& m : s.methods) {
      Error e = module.load_method(m.name);
      if (!e.ok()) return finding("fault", "reload without the fault: " + e.to_string());
    }
  }
  return check_leaks(devices.tracking, "fault");
}

std::optional<FuzzFinding> check_corruption(const ProgramScenario& s, SplitMix64& rng) {
  const std::vector<CorruptionKind> kinds = all_corruption_kinds();
  Corruption c;
  c.kind = kinds[rng.below(kinds.size())];
  c.method = static_cast<uint32_t>(rng.next());
  c.target = static_cast<uint32_t>(rng.next());
  c.amount = static_cast<uint32_t>(rng.below(4));
  if (!corruption_applies(s, c)) return std::nullopt;
  Result<std::vector<uint8_t>> bytes = build_corrupted_program(s, c);
  if (!bytes.ok())
    return finding("corruption", describe_corruption(s, c) + ": " + bytes.error().to_string());
  Result<Program> program =
      Program::load_from_bytes(Span<const uint8_t>(bytes->data(), bytes->size()));
  const bool refused = corruption_is_refused(c.kind);
  if (!program.ok()) {
    if (refused && program.code() == ErrorCode::InvalidProgram) return std::nullopt;
    return finding("corruption",
                   describe_corruption(s, c) + " gave " + program.error().to_string());
  }
  const std::string& name = s.methods[c.method % s.methods.size()].name;
  Error status = program->method_status(name);
  if (!refused) {
    // Read as ExecuTorch reads it, with a note.
    Result<const MethodPlan*> plan = program->method_plan(name);
    if (status.ok() && plan.ok() && !(*plan)->notes.empty()) return std::nullopt;
    return finding("corruption", describe_corruption(s, c) + " was " +
                                     (status.ok() ? "read without a note"
                                                  : "rejected with " + status.to_string()) +
                                     " (ExecuTorch reads it)");
  }
  if (status.code() != ErrorCode::InvalidProgram) {
    return finding("corruption",
                   describe_corruption(s, c) + " was " +
                       (status.ok() ? "accepted" : "rejected with " + status.to_string()));
  }
  return std::nullopt;
}

}  // namespace

std::optional<FuzzFinding> check_placement(const MethodScenario& m, Module& module,
                                           const std::vector<AllocationRecord>& ledger,
                                           size_t before) {
  std::vector<size_t> expected;
  for (size_t b = 0; b < m.buffers.size(); ++b) {
    if (!m.buffers[b].device.is_cpu() && m.buffers[b].size > 0) expected.push_back(b);
  }
  const size_t made = ledger.size() - before;
  if (made != expected.size()) {
    return finding("placement", "loading " + m.name + " made " + std::to_string(made) +
                                    " device allocations, expected " +
                                    std::to_string(expected.size()));
  }
  Result<const PlannedMemory*> memory = module.planned_memory(m.name);
  for (size_t i = 0; i < expected.size(); ++i) {
    const size_t b = expected[i];
    const AllocationRecord& a = ledger[before + i];
    const std::string owner = m.name + "/buffer " + std::to_string(b);
    if (a.device != m.buffers[b].device || a.size != m.buffers[b].size || a.alignment != 16 ||
        a.owner != owner || (*memory)->buffer(b).data() != a.ptr) {
      return finding("placement", "buffer " + std::to_string(b) + " of " + m.name + " (" +
                                      std::to_string(m.buffers[b].size) + " B on " +
                                      m.buffers[b].device.to_string() + ") got " +
                                      format_allocation(a));
    }
  }
  Method* method = *module.method(m.name);
  for (size_t t = 0; t < m.tensors.size(); ++t) {
    const ScenarioTensor& st = m.tensors[t];
    const Span<uint8_t> buffer = (*memory)->buffer(st.buffer);
    const uint8_t* data = static_cast<const uint8_t*>(method->value(t).tensor.data);
    const uint64_t nbytes = scenario_tensor_nbytes(st);
    if (nbytes == 0) continue;
    if (data < buffer.data() || data + nbytes > buffer.data() + buffer.size() ||
        data != buffer.data() + st.offset) {
      return finding("placement", "tensor " + std::to_string(t) + " of " + m.name +
                                      " is not at offset " + std::to_string(st.offset) +
                                      " of its buffer " + std::to_string(st.buffer));
    }
  }
  return std::nullopt;
}

// devplan probe (harness/services/probe.h) of the case in both engines: a method whose outputs
// are determined (output_determinism.h) has no finding in either. Other methods read memory
// nothing wrote or let a live tensor be overwritten, as generated: probe reports that, and
// the engines' kernels may show it differently, so they are not judged.
std::optional<FuzzFinding> check_probe(const std::vector<uint8_t>& bytes,
                                       const std::vector<std::string>& determined,
                                       const FuzzCaseOptions& case_options) {
  DeviceAllocator* device_memory = case_options.device_memory;
  if (determined.empty()) return std::nullopt;
  const ProgramImage image(bytes);
  for (RuntimeKind runtime : {RuntimeKind::Devplan, RuntimeKind::Executorch}) {
    ProbeOptions options;
    options.runtime = runtime;
    options.methods = determined;
    options.compute_bug = case_options.compute_bug;
    if (device_memory != nullptr) {
      options.device.kind = DeviceKind::Cuda;
      options.device.memory = device_memory;
    }
    bool usage_error = false;
    Result<ProbeReport> report = probe_program(image, options, &usage_error);
    if (!report.ok()) {
      return finding("probe",
                     std::string(runtime_name(runtime)) + ": " + report.error().to_string());
    }
    for (const MethodProbe& m : report->methods) {
      if (!m.findings.empty()) {
        return finding("probe",
                       std::string(runtime_name(runtime)) + ": " + m.findings.front().line());
      }
    }
    if (!report->leak_lines.empty()) {
      return finding("probe",
                     std::string(runtime_name(runtime)) + ": LEAK " + report->leak_lines.front());
    }
    if (!report->misuse_lines.empty()) {
      return finding(
          "probe", std::string(runtime_name(runtime)) + ": MISUSE " + report->misuse_lines.front());
    }
  }
  return std::nullopt;
}

std::optional<FuzzFinding> run_fuzz_case(const ProgramScenario& scenario, uint64_t case_seed,
                                         const FuzzCaseOptions& options) {
  SplitMix64 rng(case_seed);  // the case's random choices
  const std::vector<uint8_t> bytes = build_program(scenario);
  Result<Program> loaded =
      Program::load_from_bytes(Span<const uint8_t>(bytes.data(), bytes.size()));
  if (!loaded.ok()) return finding("round-trip", loaded.error().to_string());
  // One parsed program shared by the Modules below (Modules re-parse bytes, this avoids it).
  auto program = std::make_shared<const Program>(std::move(loaded).value());
  if (auto f = check_round_trip(scenario, *program)) return f;
  size_t device_allocations = 0;
  if (auto f = check_lifecycle(scenario, program, rng, options, &device_allocations)) return f;
  if (auto f = check_fault(scenario, program, device_allocations, rng, options.totals,
                           options.device_memory))
    return f;
  if (auto f = check_corruption(scenario, rng)) return f;
  if (!options.differential) return std::nullopt;
  std::vector<std::string> determined;
  for (const MethodScenario& m : scenario.methods) {
    if (outputs_are_determined(m)) determined.push_back(m.name);
  }
  DifferentialResult d = compare_engines(bytes, &determined, options.device_memory);
  if (options.known_divergences != nullptr) {
    for (const auto& [id, count] : d.known) (*options.known_divergences)[id] += count;
  }
  if (d.divergence) return d.divergence;
  return check_probe(bytes, determined, options);
}

}  // namespace devplan::harness
