#include <runtime_ext/module/module.h>

#include <algorithm>
#include <new>

#include <runtime_ext/program/mmap_data_loader.h>

namespace devplan {

Module::Module(std::string file_path, ModuleOptions options)
    : file_path_(std::move(file_path)), options_(options) {}

Module::Module(std::vector<uint8_t> program_bytes, ModuleOptions options)
    : program_bytes_(std::move(program_bytes)), options_(options) {}

Module::Module(std::shared_ptr<const Program> program, ModuleOptions options)
    : options_(options), program_(std::move(program)) {
  if (!program_) load_error_ = Error(ErrorCode::InvalidArgument, "Module given a null program");
}

Module::~Module() {
  // Methods go first, while the program they borrow from is still alive.
  methods_.clear();
}

Error Module::load() {
  if (program_) return Error::success();
  if (load_error_) return *load_error_;
  // The program's bytes are read in place, not copied: a file is memory-mapped, and bytes
  // given to the constructor move into an owner that the Program keeps.
  Result<Program> program = Error(ErrorCode::Internal, "not loaded");
  if (file_path_.empty()) {
    auto owned = std::make_shared<const std::vector<uint8_t>>(std::move(program_bytes_));
    program = Program::load_in_place(Span<const uint8_t>(owned->data(), owned->size()), owned);
  } else {
    Result<MmapDataLoader> loader = MmapDataLoader::open(file_path_);
    if (!loader.ok()) {
      load_error_ = loader.error();
      return *load_error_;
    }
    auto mapped = std::make_shared<const MmapDataLoader>(std::move(loader).value());
    program = Program::load_in_place(mapped->bytes(), mapped);
  }
  if (!program.ok()) {
    load_error_ = program.error();
    return *load_error_;
  }
  program_ = std::make_shared<const Program>(std::move(program).value());
  return Error::success();
}

Result<std::vector<std::string>> Module::method_names() {
  DEVPLAN_RETURN_IF_ERROR(load());
  std::vector<std::string> names;
  for (size_t i = 0; i < program_->num_methods(); ++i) {
    DEVPLAN_ASSIGN_OR_RETURN(const char* name, program_->method_name(i));
    names.emplace_back(name);
  }
  return names;
}

Result<MethodMeta> Module::method_meta(const std::string& name) {
  DEVPLAN_RETURN_IF_ERROR(load());
  return program_->method_meta(name);
}

Result<std::vector<int64_t>> Module::get_mem_planned_buffer_sizes(const std::string& name) {
  DEVPLAN_ASSIGN_OR_RETURN(const MethodPlan* method_plan, plan(name));
  std::vector<int64_t> sizes;
  for (uint64_t size : method_plan->buffer_sizes) sizes.push_back(static_cast<int64_t>(size));
  return sizes;
}

Result<const MethodPlan*> Module::plan(const std::string& name) {
  DEVPLAN_RETURN_IF_ERROR(load());
  return program_->method_plan(name);
}

Error Module::load_method(const std::string& name, HierarchicalAllocator* planned_memory) {
  if (is_method_loaded(name)) return Error::success();
  DEVPLAN_ASSIGN_OR_RETURN(const MethodPlan* method_plan, plan(name));
  LoadedMethod loaded;
  HierarchicalAllocator* memory = planned_memory;
  if (memory == nullptr && options_.share_memory_arenas) {
    DEVPLAN_ASSIGN_OR_RETURN(memory, shared_arena_view(*method_plan, &loaded));
  } else if (memory == nullptr) {
    PlannedMemoryOptions memory_options;
    memory_options.allocators = options_.runtime.allocators;
    memory_options.max_host_bytes = options_.max_host_buffer_bytes;
    DEVPLAN_ASSIGN_OR_RETURN(loaded.memory, PlannedMemory::allocate(*method_plan, memory_options));
    memory = loaded.memory->hierarchical_allocator();
  }
  // On failure `loaded` goes out of scope here and frees whatever was allocated for it.
  DEVPLAN_ASSIGN_OR_RETURN(
      loaded.method, Method::load(*method_plan, MemoryManager(nullptr, memory), options_.runtime));
  methods_.emplace(name, std::move(loaded));
  return Error::success();
}

Result<HierarchicalAllocator*> Module::shared_arena_view(const MethodPlan& method_plan,
                                                         LoadedMethod* loaded) {
  for (size_t b = 0; b < method_plan.buffer_devices.size(); ++b) {
    if (!method_plan.buffer_devices[b].is_cpu()) {
      return Error(ErrorCode::NotSupported, "method '" + method_plan.name +
                                                "': share_memory_arenas does not support "
                                                "device buffers (buffer " +
                                                std::to_string(b) + " is on " +
                                                method_plan.buffer_devices[b].to_string() + ")");
    }
  }
  if (shared_buffers_.empty()) {
    // Size each shared buffer for the largest CPU-only method that uses it.
    for (size_t m = 0; m < program_->num_methods(); ++m) {
      Result<const MethodPlan*> other = program_->method_plan_at(m);
      if (!other.ok() || (*other)->has_device_buffers()) continue;
      const std::vector<uint64_t>& sizes = (*other)->buffer_sizes;
      if (shared_sizes_.size() < sizes.size()) shared_sizes_.resize(sizes.size(), 0);
      for (size_t b = 0; b < sizes.size(); ++b) {
        shared_sizes_[b] = std::max(shared_sizes_[b], sizes[b]);
      }
    }
    uint64_t total = 0;
    for (uint64_t size : shared_sizes_) {
      if (size > options_.max_host_buffer_bytes - total) {
        shared_sizes_.clear();
        return Error(ErrorCode::MemoryAllocationFailed,
                     "shared arenas would exceed the limit of " +
                         std::to_string(options_.max_host_buffer_bytes) + " bytes");
      }
      total += size;
    }
    for (uint64_t size : shared_sizes_) {
      std::unique_ptr<uint64_t[]> buffer(new (std::nothrow) uint64_t[(size + 7) / 8 + 1]());
      if (!buffer) {
        shared_buffers_.clear();
        shared_sizes_.clear();
        return Error(ErrorCode::MemoryAllocationFailed,
                     "no host memory for a shared arena of " + std::to_string(size) + " bytes");
      }
      shared_buffers_.push_back(std::move(buffer));
    }
  }
  std::vector<Span<uint8_t>> spans;
  for (size_t b = 0; b < method_plan.buffer_sizes.size(); ++b) {
    spans.emplace_back(reinterpret_cast<uint8_t*>(shared_buffers_[b].get()),
                       method_plan.buffer_sizes[b]);
  }
  DEVPLAN_ASSIGN_OR_RETURN(
      HierarchicalAllocator view,
      HierarchicalAllocator::create(std::move(spans), method_plan.buffer_devices));
  loaded->shared_view = std::make_unique<HierarchicalAllocator>(std::move(view));
  return loaded->shared_view.get();
}

bool Module::is_method_loaded(const std::string& name) const { return methods_.count(name) != 0; }

Error Module::unload_method(const std::string& name) {
  auto it = methods_.find(name);
  if (it == methods_.end()) {
    return Error(ErrorCode::NotFound, "method '" + name + "' is not loaded");
  }
  methods_.erase(it);
  return Error::success();
}

Result<Method*> Module::method(const std::string& name) {
  auto it = methods_.find(name);
  if (it == methods_.end()) {
    return Error(ErrorCode::NotFound, "method '" + name + "' is not loaded");
  }
  return it->second.method.get();
}

Result<const PlannedMemory*> Module::planned_memory(const std::string& name) const {
  auto it = methods_.find(name);
  if (it == methods_.end()) {
    return Error(ErrorCode::NotFound, "method '" + name + "' is not loaded");
  }
  return static_cast<const PlannedMemory*>(it->second.memory.get());
}

Result<std::vector<EValue>> Module::execute(const std::string& name,
                                            const std::vector<EValue>& inputs) {
  DEVPLAN_RETURN_IF_ERROR(load_method(name));
  Method* m = methods_.at(name).method.get();
  if (inputs.size() > m->num_inputs()) {
    return Error(ErrorCode::InvalidArgument, "method '" + name + "' takes " +
                                                 std::to_string(m->num_inputs()) +
                                                 " inputs, given " + std::to_string(inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) DEVPLAN_RETURN_IF_ERROR(m->set_input(i, inputs[i]));
  DEVPLAN_RETURN_IF_ERROR(m->execute());
  std::vector<EValue> outputs;
  for (size_t i = 0; i < m->num_outputs(); ++i) {
    DEVPLAN_ASSIGN_OR_RETURN(const EValue* out, m->get_output(i));
    outputs.push_back(*out);
  }
  return outputs;
}

}  // namespace devplan
