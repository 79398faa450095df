#include <harness/campaign/differential_check.h>
#include <harness/campaign/fault_probe_comparison.h>
#include <harness/campaign/output_comparison.h>

#include <algorithm>

#include <harness/engine/engine.h>

namespace devplan::harness {
namespace {

// What one engine did with a program.
struct EngineRun {
  Error open;
  std::vector<MethodRun> methods;
  std::vector<AllocationRecord> ledger;
  std::vector<std::string> leaks;
  std::vector<std::string> misuse;
};

// The devices one engine runs against, kept for all the runs of a case (a fresh environment
// per run costs more than the runs themselves).
struct EngineDevices {
  EngineDevices(RuntimeKind kind, const std::vector<uint8_t>& bytes, DeviceAllocator* memory)
      : runtime(kind), bytes(bytes), memory(memory) {
    if (kind == RuntimeKind::Devplan) {
      // Parsed once for all the runtime_ext sessions of the case.
      Result<Program> loaded =
          Program::load_from_bytes(Span<const uint8_t>(bytes.data(), bytes.size()));
      if (loaded.ok()) parsed = std::make_shared<const Program>(std::move(loaded).value());
    }
  }
  RuntimeKind runtime;
  const std::vector<uint8_t>& bytes;
  DeviceAllocator* memory;                // real device memory, or null for simulated devices
  std::shared_ptr<const Program> parsed;  // runtime_ext, when the program reads
  std::unique_ptr<DeviceEnvironment> env;

  Result<std::unique_ptr<EngineSession>> open() {
    if (parsed) return open_devplan_session(parsed, *env, SessionOptions());
    return open_session(runtime, bytes, *env, SessionOptions());
  }

  // A tracking allocator with no history, no faults and nothing live.
  Error fresh() {
    if (env && env->tracking()->reset().ok()) {
      env->tracking()->clear_faults();
      return Error::success();
    }
    DeviceSetup setup;
    if (memory != nullptr) {
      setup.kind = DeviceKind::Cuda;
      setup.memory = memory;
    }
    DEVPLAN_ASSIGN_OR_RETURN(env, DeviceEnvironment::create(setup));
    env->tracking()->set_max_allocation_bytes(uint64_t{1} << 30);
    return Error::success();
  }
};

// Runs every method: load, execute (except methods named in `skip_execute`), unload, destroy.
EngineRun run_engine(EngineDevices& devices, const std::vector<std::string>& skip_execute = {}) {
  EngineRun run;
  run.open = devices.fresh();
  if (!run.open.ok()) return run;
  DeviceEnvironment& env = *devices.env;
  TrackingDeviceAllocator& tracking = *env.tracking();
  tracking.set_fill_patterns(true);
  {
    Result<std::unique_ptr<EngineSession>> session = devices.open();
    if (!session.ok()) {
      run.open = session.error();
    } else {
      for (const std::string& name : (*session)->method_names()) {
        MethodRun m;
        m.name = name;
        const uint64_t calls = tracking.allocate_calls();
        m.load = (*session)->load_method(name);
        m.allocate_calls = tracking.allocate_calls() - calls;
        run.methods.push_back(std::move(m));
      }
      for (MethodRun& m : run.methods) {
        if (!m.load.ok()) continue;
        if (std::find(skip_execute.begin(), skip_execute.end(), m.name) != skip_execute.end())
          continue;
        bool usage_error = false;
        m.outputs = (*session)->execute(m.name, {}, &usage_error);
      }
      for (const MethodRun& m : run.methods) {
        if ((*session)->is_method_loaded(m.name)) (void)(*session)->unload_method(m.name);
      }
    }
  }
  run.ledger = env.ledger();
  run.leaks = env.leak_lines();
  run.misuse = env.misuse_lines();
  return run;
}

// For each (method, count): loads the method `count` times, failing its j-th device allocation
// on the j-th load, all in one session (a Module survives a failed load). Load-only: no pattern
// fills. The probes come back per method, in order.
Result<std::vector<std::vector<FaultProbe>>> probe_faults(
    EngineDevices& devices, const std::vector<std::pair<std::string, uint64_t>>& methods) {
  DEVPLAN_RETURN_IF_ERROR(devices.fresh());
  DeviceEnvironment& env = *devices.env;
  TrackingDeviceAllocator& tracking = *env.tracking();
  tracking.set_fill_patterns(false);
  DEVPLAN_ASSIGN_OR_RETURN(std::unique_ptr<EngineSession> session, devices.open());
  std::vector<std::vector<FaultProbe>> all;
  size_t ledger_size = 0;
  for (const auto& [method, count] : methods) {
    std::vector<FaultProbe>& probes = all.emplace_back();
    for (uint64_t j = 1; j <= count; ++j) {
      tracking.fail_allocation_at(tracking.allocate_calls() + j);
      FaultProbe p;
      p.load = session->load_method(method);
      if (session->is_method_loaded(method)) (void)session->unload_method(method);
      p.made = tracking.ledger_from(ledger_size);
      ledger_size += p.made.size();
      p.live = tracking.live_count();
      p.misuse = tracking.has_misuse() ? 1 : 0;
      probes.push_back(std::move(p));
    }
  }
  return all;
}

std::string status_text(const Error& e) { return e.ok() ? "ok" : e.to_string(); }

std::optional<FuzzFinding> diverged(const std::string& message) {
  return FuzzFinding{"differential", message};
}

// A known divergence that ends the comparison of a case: a finding whose check is the
// divergence's id, which compare_engines counts instead of reporting.
std::optional<FuzzFinding> known_divergence(const char* id) { return FuzzFinding{id, ""}; }

// ExecuTorch reads IntList items as value indices (runtime_ext reads them as the integers).
bool is_intlist_index_error(const Error& e) {
  return e.code() == ErrorCode::InvalidProgram &&
         e.message().find("Invalid value index") != std::string::npos &&
         e.message().find("for IntList") != std::string::npos;
}

// The id of the known divergence that explains runtime_ext's `ours` and ExecuTorch's `theirs`
// outcome of one load (or of opening the program), or null.
const char* known_load_divergence(const Error& ours, const Error& theirs) {
  if (ours.ok() && !theirs.ok()) {
    if (is_intlist_index_error(theirs)) return kDivergenceIntListItems;
    if (error_mentions(theirs, ErrorCode::NotFound, "is not registered"))
      return kDivergenceMissingBackend;
  }
  return nullptr;
}

// Differences in whether the program and its methods load.
std::optional<FuzzFinding> compare_accept(const EngineRun& ours, const EngineRun& theirs,
                                          const std::string& when) {
  if (const char* id = known_load_divergence(ours.open, theirs.open)) return known_divergence(id);
  if (ours.open.ok() != theirs.open.ok()) {
    return diverged(when + "the program: devplan " + status_text(ours.open) + "; executorch " +
                    status_text(theirs.open));
  }
  if (ours.methods.size() != theirs.methods.size()) {
    return diverged(when + "devplan reads " + std::to_string(ours.methods.size()) +
                    " methods, executorch " + std::to_string(theirs.methods.size()));
  }
  for (size_t i = 0; i < ours.methods.size(); ++i) {
    const MethodRun& a = ours.methods[i];
    const MethodRun& b = theirs.methods[i];
    if (a.name != b.name) {
      return diverged(when + "method " + std::to_string(i) + " is '" + a.name + "' in devplan, '" +
                      b.name + "' in executorch");
    }
    if (const char* id = known_load_divergence(a.load, b.load)) return known_divergence(id);
    if (a.load.ok() != b.load.ok()) {
      return diverged(when + "load_method(" + a.name + "): devplan " + status_text(a.load) +
                      "; executorch " + status_text(b.load));
    }
  }
  return std::nullopt;
}

// Differences in the device allocations; known ones are counted in `known`.
std::optional<FuzzFinding> compare_ledgers(const EngineRun& ours, const EngineRun& theirs,
                                           const std::string& when,
                                           std::map<std::string, uint64_t>* known) {
  // ExecuTorch asks its allocator for 0 bytes for a zero-size device buffer; runtime_ext makes
  // no call. Compared without those (a known divergence).
  auto nonzero = [](const std::vector<AllocationRecord>& ledger) {
    std::vector<AllocationRecord> out;
    for (const AllocationRecord& r : ledger) {
      if (r.size > 0) out.push_back(r);
    }
    return out;
  };
  const std::vector<AllocationRecord> mine = nonzero(ours.ledger);
  const std::vector<AllocationRecord> other = nonzero(theirs.ledger);
  if (mine.size() != ours.ledger.size()) {
    return diverged(when + "devplan made a 0-byte device allocation: " +
                    format_allocation(ours.ledger.front()));
  }
  if (other.size() != theirs.ledger.size()) ++(*known)[kDivergenceZeroSizeBuffer];
  if (mine.size() != other.size()) {
    return diverged(when + "devplan made " + std::to_string(mine.size()) +
                    " device allocations, executorch " + std::to_string(other.size()) +
                    " (not counting 0-byte ones)");
  }
  bool alignment = false;
  for (size_t i = 0; i < mine.size(); ++i) {
    const AllocationRecord& a = mine[i];
    const AllocationRecord& b = other[i];
    if (a.device != b.device || a.size != b.size || a.owner != b.owner) {
      return diverged(when + "allocation " + std::to_string(i + 1) + ": devplan " +
                      format_allocation(a) + "; executorch " + format_allocation(b));
    }
    if (a.alignment != b.alignment) {
      if (a.alignment == 16 && b.alignment == 8) {
        alignment = true;
      } else {
        return diverged(when + "allocation " + std::to_string(i + 1) + " alignment: devplan " +
                        std::to_string(a.alignment) + ", executorch " +
                        std::to_string(b.alignment));
      }
    }
  }
  if (alignment) ++(*known)[kDivergenceAlignment];
  for (const EngineRun* run : {&ours, &theirs}) {
    const char* side = run == &ours ? "devplan" : "executorch";
    if (!run->leaks.empty()) return diverged(when + side + " leaked: " + run->leaks.front());
    if (!run->misuse.empty()) return diverged(when + side + " misused: " + run->misuse.front());
  }
  return std::nullopt;
}

// Failing each device allocation of each method in turn, in both engines: both fail that load
// and leave nothing live; with the same allocation counts, the loads made the same
// allocations before the failure. (With ExecuTorch's 0-byte allocations the counts differ and
// only cleanliness is compared.)
std::optional<FuzzFinding> compare_faults(EngineDevices& devplan_devices,
                                          EngineDevices& executorch_devices, const EngineRun& ours,
                                          const EngineRun& theirs) {
  std::vector<std::pair<std::string, uint64_t>> mine, other;
  for (size_t i = 0; i < ours.methods.size(); ++i) {
    if (!ours.methods[i].load.ok()) continue;
    mine.emplace_back(ours.methods[i].name, ours.methods[i].allocate_calls);
    other.emplace_back(theirs.methods[i].name, theirs.methods[i].allocate_calls);
  }
  Result<std::vector<std::vector<FaultProbe>>> all_a = probe_faults(devplan_devices, mine);
  Result<std::vector<std::vector<FaultProbe>>> all_b = probe_faults(executorch_devices, other);
  if (!all_a.ok() || !all_b.ok()) {
    return diverged(std::string("opening the program for the fault runs: devplan ") +
                    (all_a.ok() ? "ok" : all_a.error().to_string()) + "; executorch " +
                    (all_b.ok() ? "ok" : all_b.error().to_string()));
  }
  for (size_t i = 0; i < mine.size(); ++i) {
    std::optional<std::string> d = compare_fault_probes(
        mine[i].first, mine[i].second == other[i].second, (*all_a)[i], (*all_b)[i]);
    if (d) return diverged(*d);
  }
  return std::nullopt;
}

}  // namespace

DifferentialResult compare_engines(const std::vector<uint8_t>& bytes,
                                   const std::vector<std::string>* compared_outputs,
                                   DeviceAllocator* device_memory) {
  DifferentialResult result;
  EngineDevices devplan_devices(RuntimeKind::Devplan, bytes, device_memory);
  EngineDevices executorch_devices(RuntimeKind::Executorch, bytes, device_memory);
  const EngineRun ours = run_engine(devplan_devices);
  // A tensor used after a FreeCall: runtime_ext reports it; ExecuTorch has cleared the data
  // pointer and its kernel would dereference null, taking the process down. Not executed there.
  std::vector<std::string> use_after_free;
  for (const MethodRun& m : ours.methods) {
    if (m.outputs && !m.outputs->ok() &&
        m.outputs->error().message().find("used after a FreeCall") != std::string::npos) {
      use_after_free.push_back(m.name);
    }
  }
  if (!use_after_free.empty()) ++result.known[kDivergenceUseAfterFree];
  const EngineRun theirs = run_engine(executorch_devices, use_after_free);
  if ((result.divergence = compare_accept(ours, theirs, ""))) {
    if (result.divergence->check != "differential") {
      ++result.known[result.divergence->check];
      result.divergence.reset();
    }
    return result;
  }
  if ((result.divergence = compare_ledgers(ours, theirs, "", &result.known))) return result;
  if (std::optional<std::string> d =
          compare_method_outputs(ours.methods, theirs.methods, compared_outputs, &result.known)) {
    result.divergence = diverged(*d);
    return result;
  }
  result.divergence = compare_faults(devplan_devices, executorch_devices, ours, theirs);
  return result;
}

}  // namespace devplan::harness
