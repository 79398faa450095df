// The ExecuTorch engine: ExecuTorch 1.5.1's own Module (libexecutorch.so from the PyPI wheel)
// over the program bytes, its device buffers allocated through executorch_bridge's router
// and adaptor into the DeviceEnvironment's allocator.
#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>

#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/extension/module/module.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>

#include <executorch_testing/executorch_compat.h>
#include <harness/engine/caller_memory.h>
#include <harness/engine/engine.h>
#include <harness/engine/executorch/executorch_bridge.h>
#include <harness/engine/executorch/executorch_errors.h>
#include <harness/engine/executorch/executorch_hooks.h>
#include <harness/engine/executorch/executorch_memory_file.h>
#include <harness/engine/executorch/executorch_values.h>
#include <harness/engine/raw_program.h>
#include <harness/values/tensor_values.h>

namespace devplan::harness {
namespace {
namespace et = ::executorch::runtime;
namespace bridge = executorch_bridge;
using ::executorch::extension::BufferDataLoader;
using ::executorch::extension::module::Module;
using executorch_engine::from_et;
using executorch_engine::InputTensor;
using executorch_engine::MemoryFile;
using executorch_engine::to_et_device_type;

class ExecutorchSession final : public EngineSession {
 public:
  ExecutorchSession(ProgramImage bytes, DeviceEnvironment& env, const SessionOptions& options)
      : bytes_(std::move(bytes)),
        target_(env.device_allocator()),
        on_device_(&env.device_elementwise()),
        allocators_(env.allocators()),
        placeholders_(options.placeholder_backends ? new bridge::ScopedPlaceholders() : nullptr),
        minimal_verification_(options.executorch_minimal_verification),
        data_files_(options.data_files) {}

  ~ExecutorchSession() override {
    module_.reset();  // frees every device buffer while the target is still installed
  }

  Error open() {
    if (placeholders_) {
      for (const std::string& id : delegate_ids(bytes_.bytes())) {
        DEVPLAN_RETURN_IF_ERROR(bridge::ensure_placeholder_backend(id));
      }
    }
    bridge::take_error_log();
    const size_t num_data_files = data_files_ == nullptr ? 0 : data_files_->files().size();
    if (num_data_files > 1) {
      // ExecuTorch 1.5.1's Module merges several data files (MergedDataMap) only when it opens
      // the program and the files from paths: the program's bytes go through an in-memory file.
      // Mapped, as the bytes of the other path are: a host write of an initial value into
      // device memory is then a memcpy that faults, not a read() that returns EFAULT.
      DEVPLAN_ASSIGN_OR_RETURN(MemoryFile file, MemoryFile::create(bytes_.bytes()));
      program_file_ = std::make_unique<MemoryFile>(std::move(file));
      std::vector<std::string> paths;
      for (const DataFiles::Owned& f : data_files_->files()) paths.push_back(f.file.name());
      module_ =
          std::make_unique<Module>(program_file_->path(), std::move(paths), Module::LoadMode::Mmap);
    } else {
      std::unique_ptr<BufferDataLoader> data_loader;
      if (num_data_files == 1) {
        const Span<const uint8_t> data = data_files_->files()[0].file.bytes();
        data_loader = std::make_unique<BufferDataLoader>(data.data(), data.size());
      }
      module_ =
          std::make_unique<Module>(std::make_unique<BufferDataLoader>(bytes_.data(), bytes_.size()),
                                   nullptr, nullptr, nullptr, std::move(data_loader));
    }
    const et::Error e =
        module_->load(minimal_verification_ ? et::Program::Verification::Minimal
                                            : et::Program::Verification::InternalConsistency);
    if (e != et::Error::Ok) return from_et(e, "loading the program");
    std::shared_ptr<et::Program> program = module_->program();
    for (size_t i = 0; i < program->num_methods(); ++i) {
      et::Result<const char*> name = program->get_method_name(i);
      if (!name.ok()) return from_et(name.error(), "reading method name " + std::to_string(i));
      names_.emplace_back(*name);
    }
    return Error::success();
  }

  RuntimeKind runtime() const override { return RuntimeKind::Executorch; }
  const std::vector<std::string>& method_names() const override { return names_; }

  Error load_method(const std::string& name) override {
    missing_ = MissingCapability();
    return noted(load_planned(name));
  }

  Error load_method(const std::string& name, const SuppliedPlannedMemory& memory) override {
    missing_ = MissingCapability();
    return noted(load_supplied(name, memory));
  }

  const MissingCapability& missing_capability() const override { return missing_; }

  // Loads `name` over planned memory ExecuTorch allocates (device buffers through the bridge).
  Error load_planned(const std::string& name) {
    DEVPLAN_ASSIGN_OR_RETURN(std::vector<BufferOutcome> planned, planned_buffers(name));
    std::vector<bridge::ExpectedBuffer> expected;
    for (const BufferOutcome& b : planned) {
      if (b.device.is_cpu()) continue;
      bridge::ExpectedBuffer e;
      e.owner = name + "/buffer " + std::to_string(b.index);
      e.size = b.size;
      e.device_index = b.device.index;
      expected.push_back(std::move(e));
    }
    bridge::expect_buffers(std::move(expected));
    bridge::take_error_log();
    const et::Error e = module_->load_method(name);
    std::vector<bridge::ExpectedBuffer> seen = bridge::take_expected_buffers();
    const bool ok = e == et::Error::Ok;
    if (ok) {
      Error supplied = supply_caller_memory(name, std::nullopt);
      if (!supplied.ok()) {
        (void)unload_method(name);
        return supplied;
      }
    }
    for (BufferOutcome& b : planned) {
      if (b.device.is_cpu()) {
        b.allocated = ok && b.size > 0;
        continue;
      }
      const std::string owner = name + "/buffer " + std::to_string(b.index);
      for (const bridge::ExpectedBuffer& s : seen) {
        if (s.owner == owner) b.allocated = ok && s.claimed;
      }
    }
    buffers_[name] = std::move(planned);
    if (!ok) {
      const Error err = from_et(e, "load_method('" + name + "')", &missing_);
      const std::string data = external_data_problems(name);
      return data.empty() ? err : Error(err.code(), err.message() + "; devplan reads: " + data);
    }
    return Error::success();
  }

  // Loads `name` over the caller's planned memory (SuppliedPlannedMemory).
  Error load_supplied(const std::string& name, const SuppliedPlannedMemory& memory) {
    if (memory.buffers.size() != memory.devices.size()) {
      return Error(ErrorCode::InvalidArgument,
                   "supplied planned memory: " + std::to_string(memory.buffers.size()) +
                       " buffers but " + std::to_string(memory.devices.size()) + " devices");
    }
    auto supplied = std::make_unique<SuppliedBuffers>();
    for (size_t b = 0; b < memory.buffers.size(); ++b) {
      supplied->spans.emplace_back(memory.buffers[b].data(), memory.buffers[b].size());
      supplied->devices.emplace_back(
          to_et_device_type(memory.devices[b]),
          static_cast<et::etensor::DeviceIndex>(memory.devices[b].index));
    }
    supplied->allocator = std::make_unique<et::HierarchicalAllocator>(
        et::Span<et::Span<uint8_t>>(supplied->spans.data(), supplied->spans.size()),
        et::Span<const et::etensor::Device>(supplied->devices.data(), supplied->devices.size()));
    bridge::take_error_log();
    const et::Error e = module_->load_method(name, supplied->allocator.get());
    if (e != et::Error::Ok) return from_et(e, "load_method('" + name + "')", &missing_);
    supplied_[name] = std::move(supplied);
    Error bound = supply_caller_memory(name, memory.caller_output_fill);
    if (!bound.ok()) {
      (void)unload_method(name);
      return bound;
    }
    std::vector<BufferOutcome> planned;
    for (size_t b = 0; b < memory.buffers.size(); ++b) {
      BufferOutcome outcome;
      outcome.index = b;
      outcome.size = memory.buffers[b].size();
      outcome.device = memory.devices[b];
      outcome.allocated = outcome.size > 0;
      planned.push_back(outcome);
    }
    buffers_[name] = std::move(planned);
    return Error::success();
  }

  // What devplan's reading finds wrong with method `name`'s external tensors and the data files
  // given ("" when nothing): ExecuTorch's own errors name no key.
  std::string external_data_problems(const std::string& name) const {
    Result<Program> program = bytes_.program();
    if (!program.ok()) return "";
    Result<const MethodPlan*> plan = program->method_plan(name);
    if (!plan.ok()) return "";
    std::string problems;
    for (const ValueInfo& v : (*plan)->values) {
      if (v.tag != ValueTag::Tensor || v.tensor.storage != TensorStorage::External) continue;
      Result<ExternalTensorData> found = resolve_external_tensor(data_files_.get(), v.tensor);
      if (!found.ok()) problems += (problems.empty() ? "" : "; ") + found.error().message();
    }
    return problems;
  }

  bool is_method_loaded(const std::string& name) const override {
    return module_->is_method_loaded(name);
  }

  std::vector<BufferOutcome> buffers(const std::string& name) const override {
    auto it = buffers_.find(name);
    if (it != buffers_.end()) return it->second;
    Result<std::vector<BufferOutcome>> planned = planned_buffers(name);
    return planned.ok() ? *planned : std::vector<BufferOutcome>();
  }

  // ExecuTorch loads no method that lacks a kernel, so only placeholder backends stand in.
  std::vector<std::string> stand_ins(const std::string& name) override {
    std::vector<std::string> out;
    for (const std::string& id : delegate_ids(bytes_.bytes(), name)) {
      const std::string text = "backend " + id;
      if (bridge::is_placeholder_backend(id) &&
          std::find(out.begin(), out.end(), text) == out.end()) {
        out.push_back(text);
      }
    }
    return out;
  }

  Error unload_method(const std::string& name) override {
    const bool unloaded = module_->unload_method(name);
    caller_.erase(name);
    supplied_.erase(name);
    if (!unloaded) {
      return Error(ErrorCode::InvalidState, "ExecuTorch: method '" + name + "' is not loaded");
    }
    return Error::success();
  }

  Result<std::vector<OutputValues>> execute(const std::string& name,
                                            const std::vector<std::string>& given,
                                            bool* usage_error) override {
    missing_ = MissingCapability();
    Result<std::vector<OutputValues>> outputs = execute_loaded(name, given, usage_error);
    if (!outputs.ok()) note_missing(outputs.error());
    return outputs;
  }

 private:
  // A failure of load_method or execute, returned as it is: when it says an operator is missing
  // and ExecuTorch's log named nothing missing, its message stands for what is.
  Error noted(Error e) {
    note_missing(e);
    return e;
  }
  void note_missing(const Error& e) {
    if (!e.ok() && missing_.empty() && e.code() == ErrorCode::OperatorMissing) {
      missing_.unnamed = e.message();
    }
  }

  Result<std::vector<OutputValues>> execute_loaded(const std::string& name,
                                                   const std::vector<std::string>& given,
                                                   bool* usage_error) {
    *usage_error = false;
    if (!module_->is_method_loaded(name)) DEVPLAN_RETURN_IF_ERROR(load_method(name));
    et::Result<et::MethodMeta> meta = module_->method_meta(name);
    if (!meta.ok()) return from_et(meta.error(), "method_meta('" + name + "')");
    Result<std::vector<std::vector<double>>> all =
        parse_run_inputs(given, meta->num_inputs(), name);
    if (!all.ok()) {
      *usage_error = true;
      return all.error();
    }
    DEVPLAN_ASSIGN_OR_RETURN(std::vector<et::EValue> recorded, recorded_inputs(name));
    std::vector<InputTensor> storage(meta->num_inputs());
    std::vector<et::EValue> inputs;
    for (size_t i = 0; i < meta->num_inputs(); ++i) {
      const std::vector<double>& values = (*all)[i];
      et::Result<et::Tag> tag = meta->input_tag(i);
      if (!tag.ok()) return from_et(tag.error(), "input_tag(" + std::to_string(i) + ")");
      if (*tag != et::Tag::Tensor && i >= given.size()) {
        // Not given: the value the program records (ExecuTorch takes no other).
        inputs.push_back(recorded[i]);
      } else if (*tag == et::Tag::Int) {
        inputs.emplace_back(static_cast<int64_t>(values[0]));
      } else if (*tag == et::Tag::Double) {
        inputs.emplace_back(values[0]);
      } else if (*tag == et::Tag::Bool) {
        inputs.emplace_back(values[0] != 0);
      } else if (*tag == et::Tag::Tensor) {
        if (CallerTensor* bound = caller_tensor(name, false, i)) {
          // A skip-copy device input: its values go into the caller's memory.
          Result<std::vector<uint8_t>> encoded =
              encode_values(values, bound->info.dtype, static_cast<int64_t>(bound->numel()));
          if (!encoded.ok()) {
            *usage_error = encoded.code() == ErrorCode::InvalidArgument;
            return encoded.error().with_context("input " + std::to_string(i));
          }
          DEVPLAN_RETURN_IF_ERROR(
              fill_caller_memory(bound->memory, encoded->data(), encoded->size()));
          inputs.emplace_back(::executorch::aten::Tensor(bound->impl.get()));
          continue;
        }
        DEVPLAN_RETURN_IF_ERROR(
            executorch_engine::make_input(*meta, i, values, &storage[i], usage_error));
        inputs.emplace_back(::executorch::aten::Tensor(storage[i].impl.get()));
      } else {
        *usage_error = true;
        return Error(ErrorCode::InvalidArgument,
                     "input " + std::to_string(i) + " cannot be given as numbers");
      }
    }
    bridge::take_error_log();
    et::Result<std::vector<et::EValue>> outputs = module_->execute(name, inputs);
    if (!outputs.ok()) return from_et(outputs.error(), "execute('" + name + "')", &missing_);
    std::vector<OutputValues> result;
    for (size_t i = 0; i < outputs->size(); ++i) {
      DEVPLAN_ASSIGN_OR_RETURN(OutputValues o,
                               executorch_engine::read_output((*outputs)[i], i, *target_));
      result.push_back(std::move(o));
    }
    return result;
  }

 private:
  // A skip-copy device input or output: the caller's memory and ExecuTorch's tensor over it.
  struct CallerTensor {
    CallerSuppliedTensor info;
    DeviceMemoryBuffer memory;
    std::vector<::executorch::aten::SizesType> sizes;
    std::vector<::executorch::aten::DimOrderType> dim_order;
    std::vector<::executorch::aten::StridesType> strides;
    std::unique_ptr<::executorch::aten::TensorImpl> impl;
    uint64_t numel() const {
      uint64_t n = 1;
      for (int32_t s : info.sizes) n *= static_cast<uint64_t>(s);
      return n;
    }
  };

  CallerTensor* caller_tensor(const std::string& method, bool output, size_t index) {
    auto it = caller_.find(method);
    if (it == caller_.end()) return nullptr;
    for (std::unique_ptr<CallerTensor>& c : it->second) {
      if (c->info.output == output && c->info.index == index) return c.get();
    }
    return nullptr;
  }

  // Allocates the method's skip-copy device inputs (filled with ones) and outputs through the
  // device allocator, as a caller would, and binds the outputs.
  Error supply_caller_memory(const std::string& name, std::optional<uint8_t> output_fill) {
    for (CallerSuppliedTensor& info : caller_supplied_tensors(bytes_.bytes(), name)) {
      auto c = std::make_unique<CallerTensor>();
      const std::string owner =
          name + (info.output ? "/output " : "/input ") + std::to_string(info.index);
      DEVPLAN_ASSIGN_OR_RETURN(
          c->memory, allocate_caller_memory(allocators_, info.nbytes, info.device, owner));
      c->info = std::move(info);
      int64_t stride = 1;
      c->strides.assign(c->info.sizes.size(), 1);
      for (size_t d = c->info.sizes.size(); d-- > 0;) {
        c->strides[d] = static_cast<::executorch::aten::StridesType>(stride);
        stride *= c->info.sizes[d];
      }
      for (size_t d = 0; d < c->info.sizes.size(); ++d) {
        c->sizes.push_back(c->info.sizes[d]);
        c->dim_order.push_back(static_cast<uint8_t>(d));
      }
      c->impl = std::make_unique<::executorch::aten::TensorImpl>(
          static_cast<::executorch::aten::ScalarType>(c->info.dtype),
          static_cast<ssize_t>(c->sizes.size()), c->sizes.data(), c->memory.data(),
          c->dim_order.data(), c->strides.data(), ::executorch::aten::TensorShapeDynamism::STATIC,
          et::etensor::DeviceType::CUDA,
          static_cast<et::etensor::DeviceIndex>(c->info.device.index));
      if (c->info.output) {
        if (output_fill) {
          const std::vector<uint8_t> fill(c->memory.size(), *output_fill);
          DEVPLAN_RETURN_IF_ERROR(fill_caller_memory(c->memory, fill.data(), fill.size()));
        }
        const et::Error e = module_->set_output(
            name, et::EValue(::executorch::aten::Tensor(c->impl.get())), c->info.index);
        if (e != et::Error::Ok)
          return from_et(e, "set_output('" + name + "', " + std::to_string(c->info.index) + ")");
      } else {
        DEVPLAN_ASSIGN_OR_RETURN(
            std::vector<uint8_t> ones,
            encode_values({1.0}, c->info.dtype, static_cast<int64_t>(c->numel())));
        DEVPLAN_RETURN_IF_ERROR(fill_caller_memory(c->memory, ones.data(), ones.size()));
      }
      caller_[name].push_back(std::move(c));
    }
    return Error::success();
  }

  // The method's planned buffers as ExecuTorch's MethodMeta reports them (same numbering as
  // devplan's user-facing buffers).
  // The method's inputs as the program records them (a primitive's value fixed at export).
  Result<std::vector<et::EValue>> recorded_inputs(const std::string& name) {
    // Module::method and Method::get_inputs are deprecated, and the only way to these values.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    et::Result<et::Method*> method = module_->method(name);
    if (!method.ok()) return from_et(method.error(), "method('" + name + "')");
    std::vector<et::EValue> values((*method)->inputs_size());
    const et::Error e = (*method)->get_inputs(values.data(), values.size());
#pragma GCC diagnostic pop
    if (e != et::Error::Ok) return from_et(e, "get_inputs('" + name + "')");
    return values;
  }

  Result<std::vector<BufferOutcome>> planned_buffers(const std::string& name) const {
    et::Result<et::MethodMeta> meta = module_->method_meta(name);
    if (!meta.ok()) return from_et(meta.error(), "method_meta('" + name + "')");
    std::vector<BufferOutcome> out;
    for (size_t i = 0; i < meta->num_memory_planned_buffers(); ++i) {
      et::Result<int64_t> size = meta->memory_planned_buffer_size(i);
      if (!size.ok())
        return from_et(size.error(), "memory_planned_buffer_size(" + std::to_string(i) + ")");
      et::Result<et::etensor::Device> device = meta->memory_planned_buffer_device(i);
      if (!device.ok())
        return from_et(device.error(), "memory_planned_buffer_device(" + std::to_string(i) + ")");
      BufferOutcome b;
      b.index = i;
      b.size = static_cast<uint64_t>(*size);
      b.device = from_et(*device);
      out.push_back(b);
    }
    return out;
  }

  ProgramImage bytes_;  // mapped or owned; ExecuTorch reads it in place
  DeviceAllocator* target_;
  const SimulatedDeviceBackend::DeviceElementwise* on_device_;  // the environment's
  const DeviceAllocatorRegistry& allocators_;                   // holds target_, for caller memory
  bridge::ScopedBridgeTarget scoped_target_{target_, on_device_};
  std::unique_ptr<bridge::ScopedPlaceholders> placeholders_;
  bool minimal_verification_;
  // Planned memory a caller supplied (SuppliedPlannedMemory), as ExecuTorch's allocator over it.
  struct SuppliedBuffers {
    std::vector<et::Span<uint8_t>> spans;
    std::vector<et::etensor::Device> devices;
    std::unique_ptr<et::HierarchicalAllocator> allocator;
  };
  std::map<std::string, std::unique_ptr<SuppliedBuffers>> supplied_;  // outlives its method
  // Caller memory per method; freed after the Module (declared before it, reset after it).
  std::map<std::string, std::vector<std::unique_ptr<CallerTensor>>> caller_;
  std::shared_ptr<const DataFiles> data_files_;  // the loader over it lives in module_
  std::unique_ptr<MemoryFile> program_file_;     // the program for a Module opened by path
  std::unique_ptr<Module> module_;               // destroyed first (see the destructor)
  std::vector<std::string> names_;
  MissingCapability missing_;  // the last load_method's or execute's
  std::unordered_map<std::string, std::vector<BufferOutcome>> buffers_;
};

}  // namespace

bool executorch_available() { return true; }
std::string executorch_unavailable_reason() { return ""; }
std::string executorch_engine_description() {
  return executorch_testing::executorch_build_description();
}

Result<std::unique_ptr<EngineSession>> open_executorch_session(ProgramImage bytes,
                                                               DeviceEnvironment& env,
                                                               const SessionOptions& options) {
  bridge::install();
  auto session = std::make_unique<ExecutorchSession>(std::move(bytes), env, options);
  DEVPLAN_RETURN_IF_ERROR(session->open());
  return std::unique_ptr<EngineSession>(std::move(session));
}

}  // namespace devplan::harness
