// The engine seam: one interface for "load this program's methods with these allocators,
// execute, unload, destroy", with two implementations: runtime_ext (ours) and ExecuTorch 1.5.1's
// own C++ runtime (the PyPI wheel). Both draw device memory from the DeviceEnvironment's
// allocator, so the harness reports their ledgers in one shape and each engine can be the
// other's oracle.
//
//   std::unique_ptr<DeviceEnvironment> env = *DeviceEnvironment::create(DeviceKind::Simulated);
//   Result<std::unique_ptr<EngineSession>> s =
//       open_session(RuntimeKind::Executorch, bytes, *env, SessionOptions());
//   (*s)->load_method("forward");           // device buffers are allocated through env
//   (*s)->unload_method("forward");
//   s->reset();                              // the Module is destroyed: nothing may stay live
//
// A session is one Module over one program. Destroying it destroys the Module. Sessions are
// used from one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <harness/engine/device_environment.h>
#include <harness/engine/missing_capability.h>
#include <harness/engine/program_image.h>
#include <harness/engine/run_report.h>
#include <harness/engine/runtime_kind.h>
#include <runtime_ext/core/result.h>
#include <runtime_ext/core/span.h>
#include <runtime_ext/program/data_file.h>

namespace devplan::harness {

// True when this devplan was built with ExecuTorch's runtime (DEVPLAN_WITH_EXECUTORCH).
bool executorch_available();
// Why the ExecuTorch engine is missing ("" when it is available).
std::string executorch_unavailable_reason();
// Which ExecuTorch the engine is: "the executorch 1.5.1+cpu wheel", "an ExecuTorch source build
// (1.5.0, commit cff6f4dd32)", or "not built" (devplan --version prints it).
std::string executorch_engine_description();

// One planned buffer of a method as the engine saw it.
struct BufferOutcome {
  size_t index = 0;  // user-facing: entry index + 1 of non_const_buffer_sizes
  uint64_t size = 0;
  Device device;
  bool allocated = false;  // memory was obtained for it (zero-size buffers never are)
};

struct SessionOptions {
  uint64_t max_host_bytes = uint64_t{1} << 32;  // per host buffer (runtime_ext only)
  // Delegates naming a backend neither engine has get a placeholder that initialises and
  // refuses to execute, naming itself (simulate: the load path only). Off for `run`.
  bool placeholder_backends = false;
  // ExecuTorch only: load with Program::Verification::Minimal (Module::load's default, no
  // flatbuffer verifier) instead of InternalConsistency. A corrupted program can then crash
  // ExecuTorch; the harness always uses InternalConsistency, tests use this to show why.
  bool executorch_minimal_verification = false;
  // The data files (.ptd) external tensors are read from (`--data`); null or empty for none.
  std::shared_ptr<const DataFiles> data_files;
};

// Memory the caller supplies for a method's planned buffers instead of the engine's own (`devplan
// probe` fills it with a pattern first): one span per planned buffer, in MethodMeta order, on the
// buffer's device, owned by the caller until the method is unloaded.
struct SuppliedPlannedMemory {
  std::vector<Span<uint8_t>> buffers;
  std::vector<Device> devices;
  // Fills every caller-bound (unplanned) device output before it is bound; none when unset.
  std::optional<uint8_t> caller_output_fill;
};

class EngineSession {
 public:
  virtual ~EngineSession() = default;

  virtual RuntimeKind runtime() const = 0;
  virtual const std::vector<std::string>& method_names() const = 0;
  // Loads a method: its planned buffers are allocated (device ones through the environment).
  virtual Error load_method(const std::string& name) = 0;
  // Loads a method over `memory` (see SuppliedPlannedMemory): nothing is allocated for its
  // planned buffers, and a span too small for a tensor placed in it fails the load.
  virtual Error load_method(const std::string& name, const SuppliedPlannedMemory& memory) = 0;
  virtual bool is_method_loaded(const std::string& name) const = 0;
  // The method's planned buffers; `allocated` reflects the last load_method.
  virtual std::vector<BufferOutcome> buffers(const std::string& name) const = 0;
  virtual Error unload_method(const std::string& name) = 0;
  // What the loaded method needs and this engine lacks, each once ("backend CoreMLBackend",
  // "kernel aten::sin.out"): a placeholder stood in for it, or nothing did (execution fails).
  virtual std::vector<std::string> stand_ins(const std::string& name) = 0;
  // Loads the method if needed, sets its inputs (`devplan run --input` text; a missing tensor
  // input is ones, a missing primitive its recorded value), executes it once and reads every
  // output back to the host. `usage_error` is set when the failure is the caller's (bad input
  // text, too many inputs).
  virtual Result<std::vector<OutputValues>> execute(const std::string& name,
                                                    const std::vector<std::string>& inputs,
                                                    bool* usage_error) = 0;
  // What the last load_method or execute lacked when it failed for want of a kernel or a
  // backend (each engine records it where it learns it); empty after one that succeeded or
  // failed otherwise.
  virtual const MissingCapability& missing_capability() const = 0;
};

// Opens `program` (read in place: a mapped file is never copied) in the engine `kind` with
// `env`'s devices. Errors: the program does not load (the engine's error and message), or
// NotSupported when the engine is not built in.
Result<std::unique_ptr<EngineSession>> open_session(RuntimeKind kind, ProgramImage program,
                                                    DeviceEnvironment& env,
                                                    const SessionOptions& options);

Result<std::unique_ptr<EngineSession>> open_devplan_session(ProgramImage program,
                                                            DeviceEnvironment& env,
                                                            const SessionOptions& options);
// The runtime_ext engine over an already parsed program, which several sessions may share.
Result<std::unique_ptr<EngineSession>> open_devplan_session(std::shared_ptr<const Program> program,
                                                            DeviceEnvironment& env,
                                                            const SessionOptions& options);
Result<std::unique_ptr<EngineSession>> open_executorch_session(ProgramImage program,
                                                               DeviceEnvironment& env,
                                                               const SessionOptions& options);

}  // namespace devplan::harness
