#include <harness/services/program_figures.h>

#include <harness/engine/child_process.h>
#include <harness/engine/engine.h>
#include <harness/engine/program_image.h>
#include <harness/json/json.h>
#include <harness/services/replan.h>
#include <harness/services/simulation.h>
#include <harness/values/bound_ratio.h>

#include <runtime_ext/analysis/plan_check.h>
#include <runtime_ext/planning/device_propagation.h>
#include <regex>

namespace devplan::harness {
namespace {

// Whether `instruction` calls the operator `full_name` ("et_copy::_h2d_copy.out").
bool calls(const MethodPlan& plan, const InstructionInfo& instruction, const char* full_name) {
  if (instruction.kind != InstructionKind::KernelCall || instruction.op_index < 0 ||
      static_cast<size_t>(instruction.op_index) >= plan.operators.size()) {
    return false;
  }
  return plan.operators[instruction.op_index].full_name() == full_name;
}

Result<MethodFigures> method_figures(const MethodPlan& plan, const MethodSummary& summary,
                                     int64_t budget_steps) {
  MethodFigures m;
  m.name = plan.name;
  const MethodCheck check = check_method_plan(plan);
  for (const BufferSummary& b : summary.buffers) {
    BufferFigures f;
    f.index = b.index;
    f.device = b.device;
    f.size = b.size;
    f.planned_tensors = b.planned_tensors;
    f.lower_bound = b.index < check.buffers.size() ? check.buffers[b.index].lower_bound : 0;
    if (budget_steps != 0 && b.index < check.buffers.size()) {
      DEVPLAN_ASSIGN_OR_RETURN(BufferOptimum o, buffer_optimum(plan, check, b.index, budget_steps));
      if (o.optimal()) f.optimum = o.best;
    }
    m.planned_bytes[b.device] += b.size;
    m.buffers.push_back(f);
  }
  m.peak_device_bytes = peak_device_bytes(summary);
  for (const ChainInfo& chain : plan.chains) {
    for (const InstructionInfo& instruction : chain.instructions) {
      m.h2d_copies += calls(plan, instruction, kH2dCopyOp);
      m.d2h_copies += calls(plan, instruction, kD2hCopyOp);
    }
  }
  for (size_t v = 0; v < plan.values.size(); ++v) {
    if (plan.values[v].tag == ValueTag::Tensor) {
      m.tensor_devices[static_cast<int32_t>(v)] = plan.values[v].tensor.device;
    }
  }
  m.inputs = summary.inputs;
  m.outputs = summary.outputs;
  return m;
}

// Loads, unloads and destroys one method on `device`'s devices and counts what it allocated.
// Only a program the engine cannot simulate at all is an error.
Result<LoadFigures> load_method(const ProgramImage& image, const std::string& method,
                                RuntimeKind runtime, const std::vector<std::string>& data,
                                const DeviceSetup& device) {
  SimulationOptions options;
  options.device = device;
  options.methods = {method};
  options.runtime = runtime;
  options.data_paths = data;
  Result<SimulationResult> simulated = simulate_program(image, options);
  LoadFigures load;
  load.method = method;
  if (!simulated.ok()) {
    // The engine refused the program (ExecuTorch rejects some that devplan reads): the load
    // failed.
    load.status = simulated.error();
    return load;
  }
  const SimulationResult& r = *simulated;
  for (const MethodOutcome& outcome : r.methods) {
    if (!outcome.status.ok()) load.status = outcome.status;
    load.stand_ins.insert(load.stand_ins.end(), outcome.stand_ins.begin(), outcome.stand_ins.end());
  }
  for (const AllocationRecord& a : r.allocations) {
    DeviceLoad& d = load.devices[a.device];
    ++d.allocations;
    d.bytes += a.size;
  }
  load.leaks = r.leaks.size();
  load.misuse = r.misuse.size();
  return load;
}

// How a load's figures (or its error) come back from a child process.
Json load_json(const Result<LoadFigures>& result) {
  const Error status = result.ok() ? result->status : result.error();
  Json j = {{"failed", !result.ok()},
            {"code", static_cast<uint32_t>(status.code())},
            {"message", status.message()}};
  if (!result.ok()) return j;
  Json devices = Json::array();
  for (const auto& [device, d] : result->devices) {
    devices.push_back({device.to_string(), d.allocations, d.bytes});
  }
  j["devices"] = std::move(devices);
  j["leaks"] = result->leaks;
  j["misuse"] = result->misuse;
  j["placeholders"] = result->stand_ins;
  return j;
}

Result<LoadFigures> load_from_json(const Json& j, const std::string& method) {
  const Error status(static_cast<ErrorCode>(j.at("code").get<uint32_t>()),
                     j.at("message").get<std::string>());
  if (j.at("failed").get<bool>()) return status;
  LoadFigures load;
  load.method = method;
  load.status = status;
  for (const Json& d : j.at("devices")) {
    DEVPLAN_ASSIGN_OR_RETURN(Device device, parse_any_device(d.at(0).get<std::string>()));
    load.devices[device] = DeviceLoad{d.at(1).get<uint64_t>(), d.at(2).get<uint64_t>()};
  }
  load.leaks = j.at("leaks").get<size_t>();
  load.misuse = j.at("misuse").get<size_t>();
  load.stand_ins = j.at("placeholders").get<std::vector<std::string>>();
  return load;
}

// load_method in a child process: under ExecuTorch, which aborts on some programs and writes
// some device tensors' initial values with the host (a fault on simulated device memory); and
// on a GPU under either engine, so that this process never uses CUDA (which does not survive a
// fork). Such a crash is the load's failure.
Result<LoadFigures> load_method_isolated(const ProgramImage& image, const std::string& method,
                                         RuntimeKind runtime, const std::vector<std::string>& data,
                                         const DeviceSetup& device) {
  ChildOutcome child = run_in_child([&](std::string* out) {
    *out = write_json(load_json(load_method(image, method, runtime, data, device)));
    return 0;
  });
  if (child.started && !child.signaled() && child.exit_code == 0) {
    Result<Json> j = parse_json(child.out);
    try {
      if (j.ok()) return load_from_json(*j, method);
    } catch (const Json::exception&) {  // something else came back: a failure below
    }
  }
  // The crash's last line may hold a host address, which differs from run to run: masked, so
  // two loads of one program fail with the same text.
  static const std::regex kAddress("0x[0-9a-fA-F]{6,}");
  LoadFigures load;
  load.method = method;
  load.status = Error(ErrorCode::Internal,
                      std::string(runtime == RuntimeKind::Executorch ? "ExecuTorch" : "devplan") +
                          " crashed loading " + method + ": " +
                          std::regex_replace(child.describe(), kAddress, "0x..."));
  return load;
}

}  // namespace

double MethodFigures::plan_ratio() const {
  uint64_t size = 0, bound = 0;
  for (const BufferFigures& b : buffers) {
    size += b.size;
    bound += b.lower_bound;
  }
  return size_over_lower_bound(size, bound);
}

const MethodFigures* ProgramFigures::find(const std::string& method) const {
  for (const MethodFigures& m : methods) {
    if (m.name == method) return &m;
  }
  return nullptr;
}

Result<ProgramFigures> program_figures(const std::string& file, int64_t budget_steps) {
  DEVPLAN_ASSIGN_OR_RETURN(Program program, load_program_file(file));
  DEVPLAN_ASSIGN_OR_RETURN(std::vector<MethodSummary> summaries, summarize_program(program));
  ProgramFigures figures;
  for (size_t i = 0; i < program.num_methods(); ++i) {
    DEVPLAN_ASSIGN_OR_RETURN(const MethodPlan* plan, program.method_plan_at(i));
    DEVPLAN_ASSIGN_OR_RETURN(MethodFigures m, method_figures(*plan, summaries[i], budget_steps));
    figures.methods.push_back(std::move(m));
  }
  return figures;
}

Result<std::vector<LoadFigures>> load_figures(const std::string& file,
                                              const std::vector<std::string>& methods,
                                              RuntimeKind runtime,
                                              const std::vector<std::string>& data,
                                              const DeviceSetup& device) {
  DEVPLAN_ASSIGN_OR_RETURN(ProgramImage image, ProgramImage::map(file));
  std::vector<LoadFigures> loads;
  for (const std::string& method : methods) {
    DEVPLAN_ASSIGN_OR_RETURN(LoadFigures load,
                             runtime == RuntimeKind::Executorch || device.kind == DeviceKind::Cuda
                                 ? load_method_isolated(image, method, runtime, data, device)
                                 : load_method(image, method, runtime, data, device));
    loads.push_back(std::move(load));
  }
  return loads;
}

std::vector<RuntimeKind> built_runtimes() {
  std::vector<RuntimeKind> runtimes = {RuntimeKind::Devplan};
  if (executorch_available()) runtimes.push_back(RuntimeKind::Executorch);
  return runtimes;
}

}  // namespace devplan::harness
