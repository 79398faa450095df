#include <harness/fuzz/differential_check.h>

#include <algorithm>

#include <harness/engine/engine.h>

namespace devplan::harness {
namespace {

struct MethodRun {
  std::string name;
  Error load;
  std::optional<Result<std::vector<OutputValues>>> outputs;  // when executed
};

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
  explicit EngineDevices(RuntimeKind kind) : runtime(kind) {}
  RuntimeKind runtime;
  std::unique_ptr<DeviceEnvironment> env;

  // A tracking allocator with no history, no faults and nothing live.
  Error fresh() {
    if (env && env->tracking()->reset().ok()) {
      env->tracking()->clear_faults();
      return Error::success();
    }
    DEVPLAN_ASSIGN_OR_RETURN(env, DeviceEnvironment::create(DeviceKind::Simulated));
    env->tracking()->set_max_allocation_bytes(uint64_t{1} << 30);
    return Error::success();
  }
};

// Runs every method: load, execute (when `execute`, except methods named in `skip_execute`),
// unload, destroy.
EngineRun run_engine(EngineDevices& devices, const std::vector<uint8_t>& bytes, uint64_t fail_at,
                     bool execute, const std::vector<std::string>& skip_execute = {}) {
  EngineRun run;
  run.open = devices.fresh();
  if (!run.open.ok()) return run;
  DeviceEnvironment& env = *devices.env;
  // Load-only runs read no device byte: no pattern fills.
  env.tracking()->set_fill_patterns(execute);
  if (fail_at > 0) env.tracking()->fail_allocation_at(fail_at);
  {
    Result<std::unique_ptr<EngineSession>> session =
        open_session(devices.runtime, bytes, env, SessionOptions());
    if (!session.ok()) {
      run.open = session.error();
    } else {
      for (const std::string& name : (*session)->method_names()) {
        MethodRun m;
        m.name = name;
        m.load = (*session)->load_method(name);
        const bool failed = !m.load.ok();
        run.methods.push_back(std::move(m));
        // Under an injected fault, the methods after the one that failed add nothing.
        if (failed && fail_at > 0) break;
      }
      if (execute) {
        for (MethodRun& m : run.methods) {
          if (!m.load.ok()) continue;
          if (std::find(skip_execute.begin(), skip_execute.end(), m.name) != skip_execute.end()) continue;
          bool usage_error = false;
          m.outputs = (*session)->execute(m.name, {}, &usage_error);
        }
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

std::string status_text(const Error& e) { return e.ok() ? "ok" : e.to_string(); }

std::string values_text(const std::vector<OutputValues>& outputs) {
  std::string text;
  for (const OutputValues& o : outputs) {
    text += "[";
    for (size_t i = 0; i < o.values.size(); ++i) text += (i ? ", " : "") + o.values[i];
    text += "]";
  }
  return text;
}

std::optional<FuzzFinding> diverged(const std::string& message) {
  return FuzzFinding{"differential", message};
}

// A known divergence that ends the comparison of a case: a finding whose check is the
// divergence's id, which compare_engines counts instead of reporting.
std::optional<FuzzFinding> known_divergence(const char* id) { return FuzzFinding{id, ""}; }

// ExecuTorch's set_input refuses host data for a method input planned in device memory.
bool is_device_input_copy_error(const Error& e) {
  return e.code() == ErrorCode::NotSupported &&
         e.message().find("Planned-buffer copy needs host memory on both sides") != std::string::npos;
}

// ExecuTorch reads IntList items as value indices (runtime_ext reads them as the integers).
bool is_intlist_index_error(const Error& e) {
  return e.code() == ErrorCode::InvalidProgram &&
         e.message().find("Invalid value index") != std::string::npos &&
         e.message().find("for IntList") != std::string::npos;
}

bool mentions(const Error& e, ErrorCode code, const char* text) {
  return e.code() == code && e.message().find(text) != std::string::npos;
}

// The id of the known divergence that explains runtime_ext's `ours` and ExecuTorch's `theirs`
// outcome of one load (or of opening the program), or null.
const char* known_load_divergence(const Error& ours, const Error& theirs) {
  if (ours.ok() && !theirs.ok()) {
    if (is_intlist_index_error(theirs)) return kDivergenceIntListItems;
    if (mentions(theirs, ErrorCode::NotFound, "is not registered")) return kDivergenceMissingBackend;
  }
  if (!ours.ok() && theirs.ok()) {
    if (mentions(ours, ErrorCode::InvalidProgram, "planned in buffer") &&
        ours.message().find("on cpu:0") != std::string::npos) {
      return kDivergenceDeviceTensorInHostBuffer;
    }
    if (mentions(ours, ErrorCode::NotSupported, "runtime-bound tensor on")) return kDivergenceSkipCopyIo;
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
                        std::to_string(a.alignment) + ", executorch " + std::to_string(b.alignment));
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

std::optional<FuzzFinding> compare_outputs(const EngineRun& ours, const EngineRun& theirs,
                                           const std::vector<std::string>* compared,
                                           std::map<std::string, uint64_t>* known) {
  bool device_input = false;
  bool missing_kernel = false;
  for (size_t i = 0; i < ours.methods.size(); ++i) {
    const MethodRun& a = ours.methods[i];
    const MethodRun& b = theirs.methods[i];
    if (!a.outputs || !b.outputs) continue;
    const bool values_compared =
        compared == nullptr || std::find(compared->begin(), compared->end(), a.name) != compared->end();
    if (a.outputs->ok() && !b.outputs->ok() && is_device_input_copy_error(b.outputs->error())) {
      device_input = true;
      continue;
    }
    if (!a.outputs->ok() && b.outputs->ok() &&
        mentions(a.outputs->error(), ErrorCode::OperatorMissing, "has no kernel")) {
      missing_kernel = true;
      continue;
    }
    if (a.outputs->ok() != b.outputs->ok()) {
      return diverged("execute(" + a.name + "): devplan " +
                      (a.outputs->ok() ? "ok" : a.outputs->error().to_string()) + "; executorch " +
                      (b.outputs->ok() ? "ok" : b.outputs->error().to_string()));
    }
    if (!a.outputs->ok() || !values_compared) continue;
    const std::string va = values_text(**a.outputs);
    const std::string vb = values_text(**b.outputs);
    if (va != vb) return diverged("execute(" + a.name + ") outputs: devplan " + va + "; executorch " + vb);
  }
  if (device_input) ++(*known)[kDivergenceDevicePlannedInput];
  if (missing_kernel) ++(*known)[kDivergenceMissingKernel];
  return std::nullopt;
}

}  // namespace

DifferentialResult compare_engines(const std::vector<uint8_t>& bytes,
                                   const std::vector<std::string>* compared_outputs) {
  DifferentialResult result;
  EngineDevices devplan_devices(RuntimeKind::Devplan);
  EngineDevices executorch_devices(RuntimeKind::Executorch);
  const EngineRun ours = run_engine(devplan_devices, bytes, 0, true);
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
  const EngineRun theirs = run_engine(executorch_devices, bytes, 0, true, use_after_free);
  if ((result.divergence = compare_accept(ours, theirs, ""))) {
    if (result.divergence->check != "differential") {
      ++result.known[result.divergence->check];
      result.divergence.reset();
    }
    return result;
  }
  if ((result.divergence = compare_ledgers(ours, theirs, "", &result.known))) return result;
  if ((result.divergence = compare_outputs(ours, theirs, compared_outputs, &result.known))) return result;
  // Failing the k-th allocation, for every k of each engine's own count: both must fail a load
  // and leave nothing live. When ExecuTorch makes 0-byte allocations the two counts differ, so
  // only cleanliness is compared; otherwise which loads fail and the ledgers must match too.
  const bool same_counts = ours.ledger.size() == theirs.ledger.size();
  const uint64_t most = std::max(ours.ledger.size(), theirs.ledger.size());
  for (uint64_t k = 1; k <= most; ++k) {
    const std::string when = "failing device allocation " + std::to_string(k) + ": ";
    const EngineRun a = run_engine(devplan_devices, bytes, k <= ours.ledger.size() ? k : 0, false);
    const EngineRun b = run_engine(executorch_devices, bytes, k <= theirs.ledger.size() ? k : 0, false);
    std::map<std::string, uint64_t> ignored;  // counted once per case, above
    if (same_counts) {
      if ((result.divergence = compare_accept(a, b, when))) {
        if (result.divergence->check != "differential") result.divergence.reset();
        return result;
      }
      if ((result.divergence = compare_ledgers(a, b, when, &ignored))) return result;
      continue;
    }
    for (const EngineRun* run : {&a, &b}) {
      const char* side = run == &a ? "devplan" : "executorch";
      if (!run->leaks.empty()) return {diverged(when + side + " leaked: " + run->leaks.front()), {}};
      if (!run->misuse.empty()) return {diverged(when + side + " misused: " + run->misuse.front()), {}};
    }
  }
  return result;
}

}  // namespace devplan::harness
