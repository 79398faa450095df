// Module: a program plus the methods loaded from it, each with its own planned memory.
//
//   ScopedDeviceAllocator cuda(&tracking);           // or register_cuda_allocator()
//   Module module("device_add_cuda0.pte");
//   DEVPLAN_RETURN_IF_ERROR(module.load_method("forward"));   // allocates buffer 1 on cuda:0
//   Result<std::vector<EValue>> out = module.execute("forward", {a, b});
//   DEVPLAN_RETURN_IF_ERROR(module.unload_method("forward")); // frees it
//
// load_method allocates each planned buffer where the program places it: CPU buffers in host
// memory, device buffers through DeviceMemoryBuffer::create and the allocator registered for the
// device type (a CPU-only method never calls a device allocator). Every failure (no allocator,
// an allocation failing at any buffer, a bad program, a failing Method init) returns the error
// and frees everything allocated so far. Memory is freed exactly once: on unload_method, on
// destruction, or when a failed load unwinds. Loading a loaded method does nothing.
//
// Threading: a Module is used by one thread at a time; distinct Modules may be used from
// different threads concurrently (they share only the registries, which are thread-safe).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <runtime_ext/executor/method.h>
#include <runtime_ext/module/planned_memory.h>
#include <runtime_ext/program/program.h>

namespace devplan {

struct ModuleOptions {
  // ExecuTorch's option: one set of host buffers shared by all methods (each buffer as large as
  // the largest method needs). Methods with device buffers cannot share: NotSupported.
  bool share_memory_arenas = false;
  // Registries and limits used by load_method and execute.
  MethodRuntime runtime;
  // Cap on each method's host planned bytes (MemoryAllocationFailed beyond it).
  uint64_t max_host_buffer_bytes = UINT64_MAX;
};

class Module {
 public:
  // The program in `file_path`, memory-mapped when load() first runs (not copied).
  explicit Module(std::string file_path, ModuleOptions options = ModuleOptions());
  // The program in `program_bytes`, which the Module keeps and reads in place.
  explicit Module(std::vector<uint8_t> program_bytes, ModuleOptions options = ModuleOptions());
  // A Module over an already loaded program, which several Modules may share (it is immutable).
  explicit Module(std::shared_ptr<const Program> program, ModuleOptions options = ModuleOptions());
  ~Module();
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  // Reads and validates the program (once; later calls return the first result).
  Error load();
  bool is_loaded() const { return program_ != nullptr; }
  // The loaded program; null before a successful load().
  const Program* program() const { return program_.get(); }

  Result<std::vector<std::string>> method_names();
  Result<MethodMeta> method_meta(const std::string& name);
  // The sizes of method `name`'s planned buffers (user-facing order).
  Result<std::vector<int64_t>> get_mem_planned_buffer_sizes(const std::string& name);

  // Loads method `name` with its own planned memory, or with `planned_memory` when given (used
  // as given: the caller owns it and keeps it alive until the method is unloaded).
  Error load_method(const std::string& name, HierarchicalAllocator* planned_memory = nullptr);
  bool is_method_loaded(const std::string& name) const;
  // Destroys the method and frees its planned memory. NotFound when it is not loaded.
  Error unload_method(const std::string& name);

  // The loaded method `name`; NotFound when it is not loaded.
  Result<Method*> method(const std::string& name);
  // The planned memory Module allocated for loaded method `name` (null when the caller
  // supplied it or arenas are shared); NotFound when it is not loaded.
  Result<const PlannedMemory*> planned_memory(const std::string& name) const;

  // Loads `name` if needed, sets inputs[i] as input i (fewer inputs leave the rest as they
  // are), executes, and returns the outputs (device outputs hold device pointers; use
  // Method::copy_output_to_host).
  Result<std::vector<EValue>> execute(const std::string& name, const std::vector<EValue>& inputs);

 private:
  struct LoadedMethod {
    // Declared before the method so that they are destroyed after it.
    std::unique_ptr<PlannedMemory> memory;
    std::unique_ptr<HierarchicalAllocator> shared_view;
    std::unique_ptr<Method> method;
  };

  Result<const MethodPlan*> plan(const std::string& name);
  Result<HierarchicalAllocator*> shared_arena_view(const MethodPlan& plan, LoadedMethod* loaded);

  std::string file_path_;
  std::vector<uint8_t> program_bytes_;
  ModuleOptions options_;
  std::shared_ptr<const Program> program_;
  std::optional<Error> load_error_;
  std::map<std::string, LoadedMethod> methods_;
  // share_memory_arenas: host buffers sized for the largest CPU-only method, made on first use.
  std::vector<std::unique_ptr<uint64_t[]>> shared_buffers_;
  std::vector<uint64_t> shared_sizes_;
};

}  // namespace devplan
