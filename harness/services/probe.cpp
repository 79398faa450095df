#include <harness/services/probe.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>

#include <harness/engine/child_process.h>
#include <harness/engine/data_files.h>
#include <harness/engine/engine.h>
#include <harness/json/json.h>
#include <harness/services/plan_variants.h>
#include <harness/services/poisoned_memory.h>
#include <harness/values/tensor_values.h>
#include <runtime_ext/program/scalar_type.h>

namespace devplan::harness {
namespace {

using Outputs = std::vector<OutputValues>;

// One program the probe executes: its session and the state it zero-fills, per method.
struct Subject {
  std::unique_ptr<EngineSession> session;
  std::map<std::string, std::vector<ZeroRange>> zeros;
};

Result<Subject> open_subject(const ProgramImage& image, const ProbeOptions& options,
                             DeviceEnvironment& env, const SessionOptions& session_options) {
  Subject subject;
  DEVPLAN_ASSIGN_OR_RETURN(Program program, image.program());
  for (size_t m = 0; m < program.num_methods(); ++m) {
    DEVPLAN_ASSIGN_OR_RETURN(const MethodPlan* plan, program.method_plan_at(m));
    subject.zeros[plan->name] = unstated_state(*plan, check_method_plan(*plan), nullptr);
  }
  DEVPLAN_ASSIGN_OR_RETURN(subject.session,
                           open_session(options.runtime, image, env, session_options));
  return subject;
}

// Loads `method` over memory filled with `pattern`, executes it once and unloads it.
// With `missing`, a load or execution that fails for want of a kernel or backend sets it to what
// the engine lacks.
Result<Outputs> execute_once(Subject& subject, DeviceEnvironment& env, const std::string& method,
                             uint8_t pattern, const ProbeOptions& options, bool* usage_error,
                             MissingCapability* missing = nullptr) {
  EngineSession& session = *subject.session;
  DEVPLAN_ASSIGN_OR_RETURN(std::unique_ptr<PoisonedMemory> memory,
                           PoisonedMemory::allocate(env, session.buffers(method), method, pattern,
                                                    options.max_host_bytes, subject.zeros[method]));
  const Error loaded = session.load_method(method, memory->supplied);
  if (!loaded.ok()) {
    if (missing != nullptr) *missing = session.missing_capability();
    return loaded;
  }
  env.start_execution();
  Result<Outputs> outputs = session.execute(method, options.inputs, usage_error);
  if (!outputs.ok() && missing != nullptr) *missing = session.missing_capability();
  const Error unloaded = session.unload_method(method);
  if (!outputs.ok()) return outputs.error();
  if (!unloaded.ok()) return unloaded;
  return outputs;
}

bool same_output(const OutputValues& a, const OutputValues& b) {
  return a.tag == b.tag && a.bytes == b.bytes && a.values == b.values;
}

// "output 1 (float32[4, 8], cuda:0)".
std::string output_name(const OutputValues& o) {
  std::string text = "output " + std::to_string(o.index);
  if (o.tag != ValueTag::Tensor) return text;
  text += " (" + scalar_type_name(o.dtype) + "[";
  for (size_t d = 0; d < o.sizes.size(); ++d) {
    text += (d ? ", " : "") + std::to_string(o.sizes[d]);
  }
  return text + "], " + o.device.to_string() + ")";
}

constexpr const char* kNoWriter = " (no instruction writes it)";

// Whether every planned tensor the method names is written by what the program states (an
// instruction, an input, an initial value), is a view of one that is, or is state (zeros in
// every run): then no tensor of the no-reuse plan is memory only a view devplan does not read
// would have filled.
bool states_every_write(const MethodPlan& plan, const MethodCheck& check) {
  for (size_t v = 0; v < plan.values.size(); ++v) {
    const ValueInfo& value = plan.values[v];
    if (value.tag != ValueTag::Tensor || !value.tensor.is_planned() || value.tensor.nbytes == 0 ||
        !check.own_lifetimes[v].planned()) {
      continue;
    }
    if (!check.written[v] && check.alias_of[v] < 0 && !check.mutable_buffer[v]) return false;
  }
  return true;
}

// What wrote value `v` last (copies followed to their source): " (delegate 0,
// DevplanDeviceBackend)", " (aten::add.out, instruction 3)", " (no instruction writes it)".
std::string writer_text(const MethodPlan* plan, int32_t v) {
  if (plan == nullptr) return kNoWriter;
  std::vector<const InstructionInfo*> steps;
  for (const ChainInfo& chain : plan->chains) {
    for (const InstructionInfo& i : chain.instructions) steps.push_back(&i);
  }
  for (size_t s = steps.size(); s-- > 0;) {
    const InstructionInfo& i = *steps[s];
    if (i.kind == InstructionKind::Move && i.move_to == v) {
      v = i.move_from;
    } else if (i.kind == InstructionKind::DelegateCall &&
               std::find(i.args.begin(), i.args.end(), v) != i.args.end() &&
               i.delegate_index >= 0 &&
               static_cast<size_t>(i.delegate_index) < plan->delegates.size()) {
      return " (delegate " + std::to_string(i.delegate_index) + ", " +
             plan->delegates[i.delegate_index].id + ")";
    } else if (i.kind == InstructionKind::KernelCall && !i.args.empty() && i.args.back() == v &&
               i.op_index >= 0 && static_cast<size_t>(i.op_index) < plan->operators.size()) {
      const std::string op = plan->operators[i.op_index].full_name();
      if (op.rfind("et_copy::", 0) == 0) {
        v = i.args.front();
        continue;
      }
      return " (" + op + ", instruction " + std::to_string(s) + ")";
    }
  }
  return kNoWriter;
}

// The poison findings of one output: elements whose every byte is A then B (never written),
// other differences. `where` follows each finding's text ("" for the planned program).
void judge_poison(const std::string& method, const OutputValues& a, const OutputValues& b,
                  const std::string& writer, const std::string& where,
                  std::vector<ProbeFinding>* findings) {
  if (a.tag != ValueTag::Tensor || a.bytes.size() != b.bytes.size()) {
    if (!same_output(a, b)) {
      findings->push_back({"UNINITIALIZED", "method " + method + ": " + output_name(a) +
                                                " depends on unwritten planned memory" + where});
    }
    return;
  }
  const size_t width = std::max<size_t>(1, element_size(a.dtype));
  const size_t elements = a.bytes.size() / width;
  size_t unwritten = 0, differing = 0;
  for (size_t e = 0; e < elements; ++e) {
    size_t poisoned = 0;
    bool differs = false;
    for (size_t k = e * width; k < (e + 1) * width; ++k) {
      poisoned += a.bytes[k] == kPatternA && b.bytes[k] == kPatternB;
      differs = differs || a.bytes[k] != b.bytes[k];
    }
    unwritten += poisoned == width ? width : 0;
    differing += differs && poisoned < width;
  }
  if (unwritten > 0) {
    findings->push_back({"UNWRITTEN", "method " + method + ": " + output_name(a) + ": " +
                                          std::to_string(unwritten) + " of " +
                                          std::to_string(a.bytes.size()) + " bytes never written" +
                                          writer + where});
  }
  if (differing > 0) {
    findings->push_back({"UNINITIALIZED", "method " + method + ": " + output_name(a) +
                                              " depends on unwritten planned memory (" +
                                              std::to_string(differing) + " of " +
                                              std::to_string(elements) +
                                              " elements differ between poison patterns)" + where});
  }
}

// "first at element 3: 2 planned, 7 without reuse".
std::string first_difference(const OutputValues& planned, const OutputValues& other,
                             const std::string& other_name) {
  if (planned.tag != ValueTag::Tensor || planned.bytes.size() != other.bytes.size()) {
    return "its value differs";
  }
  const size_t width = std::max<size_t>(1, element_size(planned.dtype));
  for (size_t e = 0; e < planned.bytes.size() / width; ++e) {
    if (!std::equal(planned.bytes.begin() + e * width, planned.bytes.begin() + (e + 1) * width,
                    other.bytes.begin() + e * width)) {
      return "first at element " + std::to_string(e) + ": " +
             element_text(planned.bytes, e, planned.dtype) + " planned, " +
             element_text(other.bytes, e, planned.dtype) + " " + other_name;
    }
  }
  return "its value differs";
}

std::string overlaps_text(const MethodCheck& check) {
  std::string text = "tensors sharing bytes while live: ";
  for (size_t i = 0; i < check.overlaps.size(); ++i) {
    text += (i ? "; " : "") + describe_overlap(check.overlaps[i]);
  }
  return text;
}

// Judges each output of one method from its five runs (planned A, B, A again; no-reuse A, B)
// into `m`'s findings and notes. False when the planned outputs are not stable (poison or
// nondeterminism shows in them), so overlaps cannot be judged against them.
bool judge_outputs(const std::string& name, const MethodPlan* plan, const MethodCheck& check,
                   bool every_read_is_written, const std::vector<Outputs>& runs, MethodProbe* m) {
  const Outputs& pa = runs[0];
  const Outputs& pb = runs[1];
  const Outputs& again = runs[2];
  const Outputs& na = runs[3];
  const Outputs& nb = runs[4];
  bool planned_stable = true;
  for (size_t i = 0; i < pa.size() && i < pb.size() && i < again.size(); ++i) {
    if (!same_output(pa[i], again[i])) {
      m->notes.push_back(output_name(pa[i]) +
                         " differs between two executions with the same inputs and memory "
                         "(nondeterministic): not judged");
      planned_stable = false;
      continue;
    }
    const int32_t value = plan != nullptr && i < plan->outputs.size() ? plan->outputs[i] : -1;
    const size_t before = m->findings.size();
    const std::string writer = writer_text(plan, value);
    judge_poison(name, pa[i], pb[i], writer, "", &m->findings);
    if (m->findings.size() != before) {
      planned_stable = false;
      continue;
    }
    if (!same_output(na[i], nb[i])) {
      // Stable in the plan only because a tensor's stale bytes stand where nothing wrote.
      // A finding where the program states a write of every tensor it reads, or names what
      // writes the output (its own bytes stayed poison); otherwise the separation itself
      // may be what left memory unwritten (a view devplan does not read as one): a note.
      std::vector<ProbeFinding> unshared;
      judge_poison(name, na[i], nb[i], writer,
                   "; under the no-reuse plan (in the planned layout a tensor's stale bytes "
                   "stand there)",
                   &unshared);
      for (ProbeFinding& f : unshared) {
        if (every_read_is_written || (f.kind == "UNWRITTEN" && writer != kNoWriter)) {
          m->findings.push_back(std::move(f));
        } else {
          m->notes.push_back(f.line() + ": not a finding, since only the no-reuse plan shows it");
        }
      }
      continue;
    }
    if (!same_output(pa[i], na[i])) {
      const std::string text = "method " + name + ": " + output_name(pa[i]) +
                               " differs from the no-reuse plan (" +
                               first_difference(pa[i], na[i], "without reuse") + "); ";
      if (!check.overlaps.empty()) {
        m->findings.push_back({"PLAN-CORRUPTION", text + overlaps_text(check)});
      } else {
        // Nothing says which layout is right: an alias devplan does not read, or a lifetime
        // it reads too long.
        m->notes.push_back(text +
                           "check finds no tensors sharing bytes while live, so this "
                           "is not a finding: a tensor devplan reads as separate may be "
                           "meant to share bytes, or a lifetime be shorter than it reads");
      }
    }
  }
  return planned_stable;
}

}  // namespace

size_t ProbeReport::finding_count() const {
  size_t n = leak_lines.size() + misuse_lines.size();
  for (const MethodProbe& m : methods) n += m.findings.size();
  return n;
}

bool ProbeReport::has_errors() const {
  for (const MethodProbe& m : methods) {
    if (m.error) return true;
  }
  return false;
}

namespace {

// "N findings" before "error" before "not probed" (nothing probed) before "clean".
std::string verdict_text(size_t findings, bool error, bool probed) {
  if (findings > 0) return std::to_string(findings) + (findings == 1 ? " finding" : " findings");
  if (error) return "error";
  return probed ? "clean" : "not probed";
}

}  // namespace

std::string MethodProbe::verdict() const { return verdict_text(findings.size(), error, probed); }

std::string ProbeReport::verdict() const {
  bool probed = false;
  for (const MethodProbe& m : methods) probed = probed || m.probed;
  return verdict_text(finding_count(), has_errors(), probed);
}

Result<ProbeReport> probe_program(const ProgramImage& original, const ProbeOptions& options,
                                  bool* usage_error) {
  *usage_error = false;
  ProbeReport report;
  report.runtime = options.runtime;
  report.devices = options.device.describe();
  ProgramImage image = original;
  if (options.short_lifetime) {
    DEVPLAN_ASSIGN_OR_RETURN(PlanVariant planted, shortened_lifetime_variant(original));
    report.injected = "short-lifetime: " + planted.description;
    DEVPLAN_ASSIGN_OR_RETURN(image, ProgramImage::from_bytes(std::move(planted.bytes)));
  } else if (options.compute_bug != ComputeBug::None) {
    report.injected = compute_bug_name(options.compute_bug);
  }
  DEVPLAN_ASSIGN_OR_RETURN(Program program, image.program());
  // Without a no-reuse plan (one too large to write), only the poison runs judge.
  Result<PlanVariant> no_reuse = no_reuse_variant(image);
  DEVPLAN_ASSIGN_OR_RETURN(
      std::unique_ptr<DeviceEnvironment> env,
      DeviceEnvironment::create(options.device, UnloadBug::None, options.compute_bug));
  SessionOptions session_options;
  session_options.max_host_bytes = options.max_host_bytes;
  DEVPLAN_ASSIGN_OR_RETURN(session_options.data_files, map_data_files(options.data));
  {
    DEVPLAN_ASSIGN_OR_RETURN(Subject planned, open_subject(image, options, *env, session_options));
    std::optional<Subject> unshared;
    if (no_reuse.ok() && no_reuse->changed) {
      DEVPLAN_ASSIGN_OR_RETURN(ProgramImage no_reuse_image,
                               ProgramImage::from_bytes(std::move(no_reuse->bytes)));
      DEVPLAN_ASSIGN_OR_RETURN(unshared,
                               open_subject(no_reuse_image, options, *env, session_options));
    }
    const std::vector<std::string>& known = planned.session->method_names();
    std::vector<std::string> names;  // each once, in the order given
    for (const std::string& name : options.methods.empty() ? known : options.methods) {
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
    for (const std::string& name : names) {
      if (std::find(known.begin(), known.end(), name) == known.end()) {
        *usage_error = true;
        return Error(ErrorCode::NotFound, "the program has no method '" + name + "'");
      }
    }
    for (const std::string& name : names) {
      MethodProbe m;
      m.name = name;
      Result<const MethodPlan*> plan = program.method_plan(name);
      const MethodCheck check = plan.ok() ? check_method_plan(**plan) : MethodCheck();
      if (plan.ok()) unstated_state(**plan, check, &m.notes);
      const bool every_read_is_written = plan.ok() && states_every_write(**plan, check);
      if (!no_reuse.ok()) {
        m.notes.push_back("no plan without reuse: " + no_reuse.error().message() +
                          "; the outputs are judged by the poison runs only");
      }
      std::vector<Outputs> runs;  // planned A, planned B, planned A again, no-reuse A, B
      Error failed;
      MissingCapability lacking;  // what the engine lacked, when that is why `failed`
      const auto run = [&](Subject& subject, uint8_t pattern) {
        if (!failed.ok()) return;
        Result<Outputs> o =
            execute_once(subject, *env, name, pattern, options, usage_error, &lacking);
        if (!o.ok()) {
          failed = o.error();
          return;
        }
        ++m.executions;
        runs.push_back(std::move(o).value());
      };
      run(planned, kPatternA);
      run(planned, kPatternB);
      run(planned, kPatternA);
      run(unshared ? *unshared : planned, kPatternA);
      run(unshared ? *unshared : planned, kPatternB);
      if (*usage_error) return failed;
      if (!failed.ok()) {
        m.not_probed = lacking.text();
        if (failed.code() == ErrorCode::MemoryAllocationFailed) {
          m.not_probed =
              "its planned memory cannot be allocated for execution: " + failed.message();
        }
        m.error = m.not_probed.empty();
        if (m.error) m.not_probed = failed.to_string();
        report.methods.push_back(std::move(m));
        continue;
      }
      m.probed = true;
      const bool planned_stable =
          judge_outputs(name, plan.ok() ? *plan : nullptr, check, every_read_is_written, runs, &m);
      const Outputs& pa = runs[0];
      if (options.confirm_overlaps) {
        for (const Overlap& o : check.overlaps) {
          OverlapVerdict verdict;
          verdict.overlap = o;
          if (!planned_stable) {
            verdict.evidence = "not judged: the planned outputs depend on unwritten memory";
            m.overlaps.push_back(verdict);
            continue;
          }
          DEVPLAN_ASSIGN_OR_RETURN(PlanVariant separated,
                                   separated_variant(image, name, o.value_b));
          DEVPLAN_ASSIGN_OR_RETURN(ProgramImage separated_image,
                                   ProgramImage::from_bytes(std::move(separated.bytes)));
          DEVPLAN_ASSIGN_OR_RETURN(Subject subject,
                                   open_subject(separated_image, options, *env, session_options));
          Result<Outputs> outputs =
              execute_once(subject, *env, name, kPatternA, options, usage_error);
          if (!outputs.ok()) {
            verdict.evidence = "not judged: " + outputs.error().to_string();
          } else {
            ++m.executions;
            for (size_t i = 0; i < pa.size() && i < outputs->size(); ++i) {
              if (verdict.confirmed || same_output(pa[i], (*outputs)[i])) continue;
              verdict.confirmed = true;
              verdict.evidence =
                  "confirmed in execution (" + output_name(pa[i]) + " changes when value " +
                  std::to_string(o.value_b) +
                  " has bytes of its own: " + first_difference(pa[i], (*outputs)[i], "separated") +
                  ")";
            }
            if (!verdict.confirmed) {
              verdict.evidence =
                  "not observed in execution (the outputs are the same, bit for "
                  "bit, when value " +
                  std::to_string(o.value_b) + " has bytes of its own)";
            }
          }
          m.overlaps.push_back(verdict);
        }
      }
      report.methods.push_back(std::move(m));
    }
  }  // sessions closed: every device allocation must be freed now
  report.leak_lines = env->leak_lines();
  report.misuse_lines = env->misuse_lines();
  return report;
}

namespace {

std::map<std::string, MethodProbeVerdict> verdicts_of(const ProbeReport& report) {
  std::map<std::string, MethodProbeVerdict> out;
  for (const MethodProbe& m : report.methods) {
    MethodProbeVerdict& v = out[m.name];
    for (const ProbeFinding& f : m.findings) v.findings.push_back(f.line());
    v.result = m.verdict();
  }
  return out;
}

Json verdicts_json(const std::map<std::string, MethodProbeVerdict>& verdicts) {
  Json j = Json::object();
  for (const auto& [name, v] : verdicts) j[name] = {{"result", v.result}, {"findings", v.findings}};
  return j;
}

}  // namespace

Result<std::map<std::string, MethodProbeVerdict>> probe_verdicts(const std::string& path,
                                                                 const ProbeOptions& options) {
  const auto probe = [&]() -> Result<std::map<std::string, MethodProbeVerdict>> {
    DEVPLAN_ASSIGN_OR_RETURN(ProgramImage image, ProgramImage::map(path));
    bool usage_error = false;
    DEVPLAN_ASSIGN_OR_RETURN(ProbeReport report, probe_program(image, options, &usage_error));
    return verdicts_of(report);
  };
  // ExecuTorch may abort; CUDA, once used in this process, would not survive the fork of the
  // children that isolate ExecuTorch later (budget and diff load there).
  if (options.runtime != RuntimeKind::Executorch && options.device.kind != DeviceKind::Cuda) {
    return probe();
  }
  ChildOutcome child = run_in_child([&](std::string* out) {
    Result<std::map<std::string, MethodProbeVerdict>> r = probe();
    *out = write_json(r.ok() ? Json{{"methods", verdicts_json(*r)}}
                             : Json{{"error", r.error().to_string()}});
    return 0;
  });
  if (!child.started || child.signaled() || child.exit_code != 0) {
    return Error(ErrorCode::Internal, std::string(runtime_name(options.runtime)) +
                                          " aborted while probing: " + child.describe());
  }
  Result<Json> doc = parse_json(child.out);
  if (!doc.ok()) return doc.error();
  if (doc->contains("error")) {
    return Error(ErrorCode::InvalidProgram, doc->at("error").get<std::string>());
  }
  std::map<std::string, MethodProbeVerdict> out;
  for (const auto& [name, v] : doc->at("methods").items()) {
    out[name] = {v.at("result").get<std::string>(),
                 v.at("findings").get<std::vector<std::string>>()};
  }
  return out;
}

}  // namespace devplan::harness
