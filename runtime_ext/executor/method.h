// Method: one loaded method of a program, ready to execute.
//
//   Result<std::unique_ptr<Method>> m = Method::load(plan, memory_manager);
//   DEVPLAN_RETURN_IF_ERROR((*m)->set_input(0, EValue::from_tensor(host_tensor)));
//   DEVPLAN_RETURN_IF_ERROR((*m)->execute());
//   std::vector<float> out(4);
//   DEVPLAN_RETURN_IF_ERROR((*m)->copy_output_to_host(0, out.data(), 16));
//
// Loading parses the plan's values, points every planned tensor at its buffer's base plus its
// offset (through the MemoryManager's HierarchicalAllocator) and checks that the tensor's device
// is its buffer's device. Initial values of device tensors are copied through the device's
// allocator; host code never writes device memory. Runtime-bound host tensors (inputs the
// caller fills) get host memory owned by the Method; runtime-bound device tensors (skip-copy
// inputs and outputs) get the caller's device memory (set_input, set_output_data). Kernels and
// backends are resolved at load; a missing one does not fail the load, executing it returns
// OperatorMissing.
//
// Ownership: the Method borrows the MethodPlan and the planned memory, which must outlive it;
// it owns its values, its runtime-bound storage and its delegate handles.
// Threading: one thread at a time per Method; different Methods may run concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <runtime_ext/core/memory_manager.h>
#include <runtime_ext/executor/backend.h>
#include <runtime_ext/executor/evalue.h>
#include <runtime_ext/executor/kernel_registry.h>
#include <runtime_ext/program/data_file.h>
#include <runtime_ext/program/method_plan.h>

namespace devplan {

// The registries and limits a method resolves against; defaults are the global ones.
struct MethodRuntime {
  const KernelRegistry* kernels = &KernelRegistry::global();
  const BackendRegistry* backends = &BackendRegistry::global();
  const DeviceAllocatorRegistry* allocators = &DeviceAllocatorRegistry::global();
  // Cap on the host memory one method may take for runtime-bound tensors.
  uint64_t max_runtime_bound_bytes = uint64_t{1} << 32;
  // Cap on instructions executed by one execute(), so a program that jumps back forever ends
  // with InvalidState instead of hanging.
  uint64_t max_steps = 100'000'000;
  // The data files (.ptd) holding external tensors' data; nullptr when none was given.
  const DataFiles* data_files = nullptr;
};

class Method {
 public:
  static Result<std::unique_ptr<Method>> load(const MethodPlan& plan, const MemoryManager& memory,
                                              const MethodRuntime& runtime = MethodRuntime());
  ~Method();
  Method(const Method&) = delete;
  Method& operator=(const Method&) = delete;

  const std::string& name() const { return plan_.name; }
  const MethodPlan& plan() const { return plan_; }
  size_t num_values() const { return values_.size(); }
  const EValue& value(size_t i) const { return values_[i]; }
  size_t num_inputs() const { return plan_.inputs.size(); }
  size_t num_outputs() const { return plan_.outputs.size(); }

  // Copies `input` into input `i`. A tensor input takes a host tensor of the same dtype and
  // shape, copied through the device's allocator when the input lives on a device; a scalar
  // input takes a value of the same tag. A runtime-bound device input (a skip-copy program's:
  // the caller supplies its memory) takes a tensor on its device instead, whose memory it uses
  // from then on (nothing is copied).
  Error set_input(size_t i, const EValue& input);
  // Gives runtime-bound tensor output `i` the caller's memory: `nbytes` (exactly its size) at
  // `data`, on the output's device. InvalidArgument for a planned output or another size.
  Error set_output_data(size_t i, void* data, size_t nbytes);
  // True when value `index` is a runtime-bound device tensor that has no memory yet.
  bool needs_caller_memory(size_t index) const;

  // Runs every chain's instructions in order; OperatorMissing, before any runs, naming every
  // operator without a kernel and every delegate without a backend (loading allows them).
  Error execute();
  // What execute would name: "kernel aten::sin.out", "backend CoreMLBackend", each once.
  std::vector<std::string> missing() const;
  // The same names apart, each once, in the order of their first instructions: the operators
  // without a kernel ("aten::sin.out") and the delegates' backends not registered.
  std::vector<std::string> missing_kernels() const;
  std::vector<std::string> missing_backends() const;

  // Output `i` as a value (a device output holds a device pointer).
  Result<const EValue*> get_output(size_t i) const;
  // Copies tensor output `i` (exactly `nbytes`, its size) into host memory at `dst`.
  Error copy_output_to_host(size_t i, void* dst, size_t nbytes) const;

  // "aten::foo.out", "delegate FooBackend": what execute() would report as missing.
  std::vector<std::string> missing_operators() const;

 private:
  struct Step {
    const InstructionInfo* instruction = nullptr;
    KernelFunction kernel = nullptr;  // KernelCall, null when missing
    std::vector<EValue*> args;        // KernelCall / DelegateCall
  };

  Method(const MethodPlan& plan, const MemoryManager& memory, const MethodRuntime& runtime)
      : plan_(plan), memory_(memory), runtime_(runtime) {}

  Error init();
  Error init_value(size_t index);
  Error init_tensor(size_t index, const TensorInfo& info, Tensor* out);
  Error external_data(size_t index, const TensorInfo& info, Tensor* out) const;
  Error init_delegates();
  Error init_steps();
  // The first instruction of each operator without a kernel and each delegate without a backend.
  struct Missing {
    size_t chain = 0, pc = 0;
    bool backend = false;  // else a kernel
    std::string name;      // the operator's full name or the backend id
  };
  std::vector<Missing> missing_steps() const;
  // OperatorMissing naming every operator without a kernel and every delegate without a backend.
  Error check_runnable() const;
  Error run_step(size_t chain, size_t pc, const Step& step);
  Result<bool> jump_condition(int32_t index) const;
  std::string where(size_t chain, size_t pc) const;

  const MethodPlan& plan_;
  MemoryManager memory_;
  MethodRuntime runtime_;
  std::vector<EValue> values_;
  // Values whose memory a FreeCall released during the current execute() (ExecuTorch clears
  // such a tensor's data pointer; a later use is an error here, not a crash).
  std::vector<uint8_t> freed_;
  // Runtime-bound device tensors (skip-copy inputs and outputs) whose memory the caller has not
  // supplied yet; using one is an error.
  std::vector<uint8_t> unbound_;
  std::vector<std::unique_ptr<uint64_t[]>> runtime_bound_storage_;
  uint64_t runtime_bound_bytes_ = 0;
  std::vector<Backend*> delegate_backends_;
  std::vector<std::unique_ptr<DelegateHandle>> delegate_handles_;
  std::vector<std::vector<Step>> chains_;
};

}  // namespace devplan
