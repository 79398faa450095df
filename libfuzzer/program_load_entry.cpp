#include <libfuzzer/program_load_entry.h>

#include <memory>
#include <sstream>
#include <vector>

#include <mocks/simulated_device_backend.h>
#include <mocks/tracking_device_allocator.h>
#include <runtime_ext/core/device_allocator_registry.h>
#include <runtime_ext/executor/backend.h>
#include <runtime_ext/module/module.h>
#include <runtime_ext/program/program.h>

namespace devplan::fuzz {
namespace {

// Collects findings as lines.
class Findings {
 public:
  void add(const std::string& line) { text_ += line + "\n"; }
  // Adds a finding when `error` failed without a message (the runtime must say what failed).
  void require_message(const Error& error, const std::string& where) {
    if (!error.ok() && error.message().empty()) {
      add(where + ": error " + error_code_name(error.code()) + " without a message");
    }
  }
  template <typename T>
  void require_message(const Result<T>& result, const std::string& where) {
    if (!result.ok()) require_message(result.error(), where);
  }
  std::string take() { return std::move(text_); }

 private:
  std::string text_;
};

void append_reports(const TrackingDeviceAllocator& allocator, Findings& findings) {
  for (const std::string& line : allocator.leak_report_lines()) findings.add("  leak: " + line);
  for (const std::string& line : allocator.misuse_report_lines()) {
    findings.add("  misuse: " + line);
  }
}

// Step 1: every MethodMeta query of every method, on the Program alone.
void query_program(const Program& program, ProgramLoadOutcome& outcome, Findings& findings) {
  outcome.methods = program.num_methods();
  for (size_t m = 0; m < program.num_methods(); ++m) {
    Result<const char*> name = program.method_name(m);
    if (!name.ok()) {
      findings.add("method_name(" + std::to_string(m) +
                   ") failed for an index in range: " + name.error().to_string());
      continue;
    }
    const std::string method = *name;
    findings.require_message(program.method_status(method), "method_status(" + method + ")");
    Result<MethodMeta> meta = program.method_meta(method);
    findings.require_message(meta, "method_meta(" + method + ")");
    if (!meta.ok()) continue;
    ++outcome.valid_methods;
    const std::string where = "method '" + method + "'";
    for (size_t i = 0; i < meta->num_memory_planned_buffers(); ++i) {
      findings.require_message(meta->memory_planned_buffer_size(i), where + " buffer size");
      findings.require_message(meta->memory_planned_buffer_device(i), where + " buffer device");
    }
    for (size_t i = 0; i < meta->num_inputs(); ++i) {
      Result<ValueTag> tag = meta->input_tag(i);
      findings.require_message(tag, where + " input_tag");
      if (tag.ok() && *tag == ValueTag::Tensor) {
        findings.require_message(meta->input_tensor_meta(i), where + " input_tensor_meta");
      }
    }
    for (size_t i = 0; i < meta->num_outputs(); ++i) {
      Result<ValueTag> tag = meta->output_tag(i);
      findings.require_message(tag, where + " output_tag");
      if (tag.ok() && *tag == ValueTag::Tensor) {
        findings.require_message(meta->output_tensor_meta(i), where + " output_tensor_meta");
      }
    }
    for (size_t i = 0; i < meta->num_backends(); ++i) {
      Result<const char*> backend = meta->backend_name(i);
      findings.require_message(backend, where + " backend_name");
      if (backend.ok()) (void)meta->uses_backend(*backend);
    }
    (void)meta->num_instructions();
    (void)meta->has_device_buffers();
    // One past the end of each list must be InvalidArgument.
    const size_t nb = meta->num_memory_planned_buffers();
    if (meta->memory_planned_buffer_size(nb).error() != ErrorCode::InvalidArgument ||
        meta->memory_planned_buffer_device(nb).error() != ErrorCode::InvalidArgument ||
        meta->input_tag(meta->num_inputs()).error() != ErrorCode::InvalidArgument ||
        meta->output_tag(meta->num_outputs()).error() != ErrorCode::InvalidArgument ||
        meta->backend_name(meta->num_backends()).error() != ErrorCode::InvalidArgument) {
      findings.add(where + ": an out-of-range MethodMeta query did not return InvalidArgument");
    }
  }
  if (program.method_name(program.num_methods()).error() != ErrorCode::InvalidArgument) {
    findings.add("method_name(num_methods()) did not return InvalidArgument");
  }
}

// The device allocations a successful load_method of `plan` makes: one per non-empty buffer
// that is not on the CPU.
uint64_t expected_device_allocations(const MethodPlan& plan) {
  uint64_t n = 0;
  for (size_t i = 0; i < plan.buffer_sizes.size(); ++i) {
    if (!plan.buffer_devices[i].is_cpu() && plan.buffer_sizes[i] > 0) ++n;
  }
  return n;
}

// Step 3 for one loaded method: inputs, execute, outputs.
bool run_method(Method& method) {
  std::vector<std::unique_ptr<uint32_t[]>> storage;
  for (size_t i = 0; i < method.num_inputs(); ++i) {
    const int32_t index = method.plan().inputs[i];
    if (index < 0 || static_cast<size_t>(index) >= method.num_values()) continue;
    const EValue& current = method.value(static_cast<size_t>(index));
    if (current.is_tensor()) {
      const uint64_t nbytes = current.tensor.nbytes;
      if (nbytes > kMaxInputBytes) continue;
      const size_t words = static_cast<size_t>((nbytes + 3) / 4) + 1;
      storage.emplace_back(new uint32_t[words]);
      for (size_t w = 0; w < words; ++w) storage.back()[w] = 0x3F800000u;  // 1.0f
      Tensor host;
      host.dtype = current.tensor.dtype;
      host.sizes = current.tensor.sizes;
      host.data = storage.back().get();
      host.nbytes = nbytes;
      (void)method.set_input(i, EValue::from_tensor(host));
    } else {
      const EValue copy = current;
      (void)method.set_input(i, copy);
    }
  }
  const Error executed = method.execute();
  if (!executed.ok()) return false;
  for (size_t i = 0; i < method.num_outputs(); ++i) {
    Result<const EValue*> out = method.get_output(i);
    if (!out.ok() || !(*out)->is_tensor()) continue;
    const uint64_t nbytes = (*out)->tensor.nbytes;
    if (nbytes > kMaxInputBytes) continue;
    std::vector<uint8_t> host(static_cast<size_t>(nbytes) + 1);
    (void)method.copy_output_to_host(i, host.data(), static_cast<size_t>(nbytes));
  }
  return true;
}

// Steps 2 and 3.
void run_module(Span<const uint8_t> bytes, bool program_loaded, TrackingDeviceAllocator& cuda,
                ProgramLoadOutcome& outcome, Findings& findings) {
  ModuleOptions module_options;
  module_options.max_host_buffer_bytes = kMaxHostBufferBytes;
  module_options.runtime.max_runtime_bound_bytes = kMaxRuntimeBoundBytes;
  module_options.runtime.max_steps = kMaxSteps;
  Module module(std::vector<uint8_t>(bytes.begin(), bytes.end()), module_options);

  const Error loaded = module.load();
  findings.require_message(loaded, "Module::load");
  if (loaded.ok() != program_loaded) {
    findings.add(std::string("Program::load_from_bytes ") +
                 (program_loaded ? "succeeded" : "failed") + " but Module::load " +
                 (loaded.ok() ? "succeeded" : "failed: " + loaded.to_string()));
  }
  if (!loaded.ok()) return;

  Result<std::vector<std::string>> names = module.method_names();
  findings.require_message(names, "Module::method_names");
  if (!names.ok()) return;

  bool reloaded = false;
  for (const std::string& name : *names) {
    const std::string where = "method '" + name + "'";
    Result<std::vector<int64_t>> sizes = module.get_mem_planned_buffer_sizes(name);
    Result<MethodMeta> meta = module.method_meta(name);
    findings.require_message(sizes, where + " get_mem_planned_buffer_sizes");
    if (sizes.ok() && meta.ok()) {
      bool same = sizes->size() == meta->num_memory_planned_buffers();
      for (size_t i = 0; same && i < sizes->size(); ++i) {
        Result<int64_t> size = meta->memory_planned_buffer_size(i);
        same = size.ok() && (*sizes)[i] == *size;
      }
      if (!same) findings.add(where + ": MethodMeta and Module disagree on buffer sizes");
    }

    const uint64_t live_before = cuda.live_count();
    const Error load = module.load_method(name);
    findings.require_message(load, where + " load_method");
    if (!load.ok()) {
      if (cuda.live_count() != live_before) {
        findings.add(where + ": a failed load_method (" + load.to_string() + ") left " +
                     std::to_string(cuda.live_count() - live_before) +
                     " device allocation(s) live");
      }
      continue;
    }
    ++outcome.loaded_methods;
    if (meta.ok()) {
      const uint64_t expected = expected_device_allocations(meta->plan());
      const uint64_t live = cuda.live_count() - live_before;
      if (live != expected) {
        findings.add(where + ": load_method made " + std::to_string(live) +
                     " live device allocation(s), the program has " + std::to_string(expected) +
                     " non-empty device buffer(s)");
      }
    }
    Result<Method*> method = module.method(name);
    if (!method.ok()) {
      findings.add(where + ": loaded but method() failed: " + method.error().to_string());
    } else if (run_method(**method)) {
      ++outcome.executed_methods;
    }
    const Error unload = module.unload_method(name);
    if (!unload.ok()) findings.add(where + ": unload_method failed: " + unload.to_string());
    if (cuda.live_count() != live_before) {
      findings.add(where + ": " + std::to_string(cuda.live_count() - live_before) +
                   " device allocation(s) live after unload_method");
    }
    if (!reloaded) {
      // Left loaded on purpose: ~Module must free it.
      reloaded = true;
      const Error again = module.load_method(name);
      if (!again.ok()) findings.add(where + ": second load_method failed: " + again.to_string());
    }
  }
}

}  // namespace

ProgramLoadOutcome run_program_load(Span<const uint8_t> bytes, const ProgramLoadOptions& options) {
  ProgramLoadOutcome outcome;
  Findings findings;

  {
    Result<Program> program = Program::load_from_bytes(bytes);
    findings.require_message(program, "Program::load_from_bytes");
    outcome.program_loaded = program.ok();
    if (program.ok()) query_program(*program, outcome, findings);
  }

  TrackingDeviceAllocator cuda(DeviceType::CUDA);
  cuda.set_max_allocation_bytes(kMaxDeviceAllocationBytes);
  for (int i = 0; i < TrackingDeviceAllocator::kNumSimulatedIndices; ++i) {
    (void)cuda.set_capacity(static_cast<DeviceIndex>(i), kDeviceCapacityBytes);
  }
  {
    UnloadBugAllocator registered(&cuda, options.unload_bug);
    ScopedDeviceAllocator scoped_cuda(&registered);
    SimulatedDeviceBackend add(SimulatedDeviceBackend::Op::Add);
    SimulatedDeviceBackend mul(SimulatedDeviceBackend::Op::Mul);
    ScopedBackend scoped_add(SimulatedDeviceBackend::kAddBackendId, &add);
    ScopedBackend scoped_mul(SimulatedDeviceBackend::kMulBackendId, &mul);
    run_module(bytes, outcome.program_loaded, cuda, outcome, findings);
  }
  // ~Module has run: nothing may be live, nothing may have been misused.
  if (cuda.has_leaks() || cuda.has_misuse()) {
    findings.add(std::to_string(cuda.live_count()) + " live device allocation(s) and " +
                 std::to_string(cuda.misuse().size()) + " misuse record(s) after ~Module");
  }
  outcome.device_allocations = cuda.ledger().size();
  std::string text = findings.take();
  if (!text.empty()) {
    Findings reports;
    append_reports(cuda, reports);
    text += reports.take();
  }
  outcome.finding = std::move(text);
  return outcome;
}

}  // namespace devplan::fuzz
