// The runtime_ext engine: a devplan Module over the program, with the environment's registries.
#include <map>
#include <optional>

#include <harness/engine/caller_memory.h>
#include <harness/engine/engine.h>
#include <harness/values/tensor_values.h>
#include <runtime_ext/module/module.h>

namespace devplan::harness {
namespace {

// Sets every input of `method`: the given values, or ones for a tensor and the recorded value
// for anything else. Runtime-bound device inputs are
// already bound to caller memory (`caller`, by input index): their values are copied into it.
Error set_inputs(Method& method, const std::vector<std::string>& given,
                 const std::map<size_t, DeviceMemoryBuffer>& caller, bool* usage_error) {
  Result<std::vector<std::vector<double>>> all =
      parse_run_inputs(given, method.num_inputs(), method.name());
  if (!all.ok()) {
    *usage_error = true;
    return all.error();
  }
  for (size_t i = 0; i < method.num_inputs(); ++i) {
    const std::vector<double>& values = (*all)[i];
    const EValue& target = method.value(method.plan().inputs[i]);
    EValue input;
    std::vector<uint8_t> bytes;
    if (!target.is_tensor() && i >= given.size()) continue;  // not given: the recorded value
    if (target.is_tensor()) {
      Result<std::vector<uint8_t>> encoded =
          encode_values(values, target.tensor.dtype, target.tensor.numel());
      if (!encoded.ok()) {
        *usage_error = encoded.code() == ErrorCode::InvalidArgument;
        return encoded.error().with_context("input " + std::to_string(i) + " (" +
                                            target.tensor.describe() + ")");
      }
      bytes = std::move(encoded).value();
      auto bound = caller.find(i);
      if (bound != caller.end()) {
        DEVPLAN_RETURN_IF_ERROR(fill_caller_memory(bound->second, bytes.data(), bytes.size()));
        continue;
      }
      Tensor t = target.tensor;
      t.device = Device::cpu();
      t.data = bytes.data();
      input = EValue::from_tensor(t);
    } else if (target.is_int()) {
      input = EValue::from_int(static_cast<int64_t>(values[0]));
    } else if (target.is_double()) {
      input = EValue::from_double(values[0]);
    } else if (target.is_bool()) {
      input = EValue::from_bool(values[0] != 0);
    } else {
      *usage_error = true;
      return Error(ErrorCode::InvalidArgument, "input " + std::to_string(i) + " is " +
                                                   value_tag_name(target.tag) +
                                                   " and cannot be given as numbers");
    }
    DEVPLAN_RETURN_IF_ERROR(method.set_input(i, input));
  }
  return Error::success();
}

// Copies output `i` to the host (a tensor's bytes; another value formatted).
Result<OutputValues> read_output(const Method& method, size_t i) {
  DEVPLAN_ASSIGN_OR_RETURN(const EValue* out, method.get_output(i));
  OutputValues result;
  result.index = i;
  result.tag = out->tag;
  if (out->is_tensor()) {
    result.dtype = out->tensor.dtype;
    result.sizes = out->tensor.sizes;
    result.device = out->tensor.device;
    DEVPLAN_RETURN_IF_ERROR(check_decodable(out->tensor.dtype));
    result.bytes.resize(out->tensor.nbytes);
    DEVPLAN_RETURN_IF_ERROR(
        method.copy_output_to_host(i, result.bytes.data(), result.bytes.size()));
  } else if (out->is_int()) {
    result.values = {std::to_string(out->int_value)};
  } else if (out->is_double()) {
    result.values = {format_number(out->double_value)};
  } else if (out->is_bool()) {
    result.values = {out->bool_value ? "true" : "false"};
  }
  return result;
}

class DevplanSession final : public EngineSession {
 public:
  DevplanSession(std::shared_ptr<const Program> program, ModuleOptions options,
                 std::shared_ptr<const DataFiles> data_files)
      : allocators_(*options.runtime.allocators),
        data_files_(std::move(data_files)),
        module_(std::move(program), with_data(options, data_files_.get())) {}

  static ModuleOptions with_data(ModuleOptions options, const DataFiles* data_files) {
    options.runtime.data_files = data_files;
    return options;
  }

  Error open() {
    DEVPLAN_RETURN_IF_ERROR(module_.load());
    DEVPLAN_ASSIGN_OR_RETURN(names_, module_.method_names());
    return Error::success();
  }

  RuntimeKind runtime() const override { return RuntimeKind::Devplan; }
  const std::vector<std::string>& method_names() const override { return names_; }
  Error load_method(const std::string& name) override {
    missing_ = MissingCapability();
    DEVPLAN_RETURN_IF_ERROR(module_.load_method(name));
    return finish_load(name, std::nullopt);
  }
  Error load_method(const std::string& name, const SuppliedPlannedMemory& memory) override {
    missing_ = MissingCapability();
    DEVPLAN_ASSIGN_OR_RETURN(HierarchicalAllocator planned,
                             HierarchicalAllocator::create(memory.buffers, memory.devices));
    auto owned = std::make_unique<HierarchicalAllocator>(std::move(planned));
    DEVPLAN_RETURN_IF_ERROR(module_.load_method(name, owned.get()));
    supplied_[name] = std::move(owned);
    return finish_load(name, memory.caller_output_fill);
  }
  Error finish_load(const std::string& name, std::optional<uint8_t> output_fill) {
    Error supplied = supply_caller_memory(name, output_fill);
    if (!supplied.ok()) {
      (void)unload_method(name);
      return supplied;
    }
    return Error::success();
  }
  bool is_method_loaded(const std::string& name) const override {
    return module_.is_method_loaded(name);
  }
  Error unload_method(const std::string& name) override {
    Error e = module_.unload_method(name);
    caller_inputs_.erase(name);
    caller_outputs_.erase(name);
    supplied_.erase(name);
    return e;
  }

  const MissingCapability& missing_capability() const override { return missing_; }

  std::vector<std::string> stand_ins(const std::string& name) override {
    Result<Method*> method = module_.method(name);
    return method.ok() ? (*method)->missing() : std::vector<std::string>();
  }

  std::vector<BufferOutcome> buffers(const std::string& name) const override {
    std::vector<BufferOutcome> out;
    Result<const MethodPlan*> plan = module_.program()->method_plan(name);
    if (!plan.ok()) return out;
    Result<const PlannedMemory*> memory = module_.planned_memory(name);
    for (size_t b = 0; b < (*plan)->buffer_sizes.size(); ++b) {
      BufferOutcome buffer;
      buffer.index = b;
      buffer.size = (*plan)->buffer_sizes[b];
      buffer.device = (*plan)->buffer_devices[b];
      buffer.allocated = memory.ok() && *memory != nullptr && !(*memory)->buffer(b).empty();
      out.push_back(buffer);
    }
    return out;
  }

  Result<std::vector<OutputValues>> execute(const std::string& name,
                                            const std::vector<std::string>& inputs,
                                            bool* usage_error) override {
    *usage_error = false;
    missing_ = MissingCapability();
    if (!module_.is_method_loaded(name)) DEVPLAN_RETURN_IF_ERROR(load_method(name));
    DEVPLAN_ASSIGN_OR_RETURN(Method * method, module_.method(name));
    DEVPLAN_RETURN_IF_ERROR(set_inputs(*method, inputs, caller_inputs_[name], usage_error));
    Error executed = method->execute();
    if (!executed.ok()) {
      // The method names what it lacks (it refuses to run any of it then): recorded apart.
      missing_.kernels = method->missing_kernels();
      missing_.backends = method->missing_backends();
      if (missing_.empty() && executed.code() == ErrorCode::OperatorMissing) {
        missing_.unnamed = executed.message();
      }
      return executed;
    }
    std::vector<OutputValues> outputs;
    for (size_t i = 0; i < method->num_outputs(); ++i) {
      DEVPLAN_ASSIGN_OR_RETURN(OutputValues o, read_output(*method, i));
      outputs.push_back(std::move(o));
    }
    return outputs;
  }

 private:
  // Allocates and binds the runtime-bound device inputs (filled with ones) and outputs of a
  // loaded method, as its caller would.
  Error supply_caller_memory(const std::string& name, std::optional<uint8_t> output_fill) {
    DEVPLAN_ASSIGN_OR_RETURN(Method * method, module_.method(name));
    const MethodPlan& plan = method->plan();
    for (size_t i = 0; i < plan.inputs.size(); ++i) {
      const int32_t v = plan.inputs[i];
      if (!method->needs_caller_memory(static_cast<size_t>(v))) continue;
      Tensor t = method->value(static_cast<size_t>(v)).tensor;
      DEVPLAN_ASSIGN_OR_RETURN(DeviceMemoryBuffer memory,
                               allocate_caller_memory(allocators_, t.nbytes, t.device,
                                                      name + "/input " + std::to_string(i)));
      DEVPLAN_ASSIGN_OR_RETURN(std::vector<uint8_t> ones, encode_values({1.0}, t.dtype, t.numel()));
      DEVPLAN_RETURN_IF_ERROR(fill_caller_memory(memory, ones.data(), ones.size()));
      t.data = memory.data();
      DEVPLAN_RETURN_IF_ERROR(method->set_input(i, EValue::from_tensor(t)));
      caller_inputs_[name].emplace(i, std::move(memory));
    }
    for (size_t i = 0; i < plan.outputs.size(); ++i) {
      const int32_t v = plan.outputs[i];
      if (!method->needs_caller_memory(static_cast<size_t>(v))) continue;
      const Tensor& t = method->value(static_cast<size_t>(v)).tensor;
      DEVPLAN_ASSIGN_OR_RETURN(DeviceMemoryBuffer memory,
                               allocate_caller_memory(allocators_, t.nbytes, t.device,
                                                      name + "/output " + std::to_string(i)));
      if (output_fill) {
        const std::vector<uint8_t> fill(memory.size(), *output_fill);
        DEVPLAN_RETURN_IF_ERROR(fill_caller_memory(memory, fill.data(), fill.size()));
      }
      DEVPLAN_RETURN_IF_ERROR(method->set_output_data(i, memory.data(), memory.size()));
      caller_outputs_[name].emplace(i, std::move(memory));
    }
    return Error::success();
  }

  const DeviceAllocatorRegistry& allocators_;
  std::shared_ptr<const DataFiles> data_files_;  // external tensors point into it: outlives module_
  // Caller memory per method and input/output index; freed after the Module (declared first).
  std::map<std::string, std::map<size_t, DeviceMemoryBuffer>> caller_inputs_;
  std::map<std::string, std::map<size_t, DeviceMemoryBuffer>> caller_outputs_;
  // The supplied planned memory's view per method loaded over it; outlives its method.
  std::map<std::string, std::unique_ptr<HierarchicalAllocator>> supplied_;
  mutable Module module_;
  std::vector<std::string> names_;
  MissingCapability missing_;  // the last load_method's or execute's
};

}  // namespace

namespace {

ModuleOptions module_options_for(DeviceEnvironment& env, const SessionOptions& options) {
  ModuleOptions module_options = env.module_options();
  module_options.max_host_buffer_bytes = options.max_host_bytes;
  return module_options;
}

}  // namespace

Result<std::unique_ptr<EngineSession>> open_devplan_session(ProgramImage program,
                                                            DeviceEnvironment& env,
                                                            const SessionOptions& options) {
  DEVPLAN_ASSIGN_OR_RETURN(Program parsed, program.program());
  return open_devplan_session(std::make_shared<const Program>(std::move(parsed)), env, options);
}

Result<std::unique_ptr<EngineSession>> open_devplan_session(std::shared_ptr<const Program> program,
                                                            DeviceEnvironment& env,
                                                            const SessionOptions& options) {
  auto session = std::make_unique<DevplanSession>(
      std::move(program), module_options_for(env, options), options.data_files);
  DEVPLAN_RETURN_IF_ERROR(session->open());
  return std::unique_ptr<EngineSession>(std::move(session));
}

}  // namespace devplan::harness
