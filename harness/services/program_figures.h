// ProgramFigures: what `devplan diff` compares and `devplan budget` records about one program,
// per method: its planned buffers (size, device, planned tensors, lower bound, proven optimum),
// planned and peak device bytes per device, the copies the exporter inserted, every tensor's
// device, and the inputs and outputs. LoadFigures: what one load of a method allocates on the
// devices under an engine.
//
//   Result<ProgramFigures> p = program_figures("model.pte");
//   p->methods[0].buffers[1].size, p->methods[0].peak_device_bytes[cuda0], ...
//   Result<std::vector<LoadFigures>> loads = load_figures("model.pte", names,
//   RuntimeKind::Devplan);
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <harness/engine/device_environment.h>
#include <harness/engine/runtime_kind.h>
#include <harness/services/program_summary.h>
#include <runtime_ext/core/device.h>
#include <runtime_ext/core/result.h>

namespace devplan::harness {

struct BufferFigures {
  size_t index = 0;
  Device device;
  uint64_t size = 0;
  size_t planned_tensors = 0;
  uint64_t lower_bound = 0;         // the largest total of live bytes (aligned) at one step
  std::optional<uint64_t> optimum;  // the smallest plan, when the exact planner proved it
};

struct MethodFigures {
  std::string name;
  std::vector<BufferFigures> buffers;
  std::map<Device, uint64_t> planned_bytes;      // every device's buffers summed, the CPU's too
  std::map<Device, uint64_t> peak_device_bytes;  // as `inspect` reports it (no CPU)
  size_t h2d_copies = 0;                         // et_copy::_h2d_copy.out instructions
  size_t d2h_copies = 0;                         // et_copy::_d2h_copy.out instructions
  std::map<int32_t, Device> tensor_devices;      // every tensor value's device, by value index
  std::vector<ValueSummary> inputs;
  std::vector<ValueSummary> outputs;

  // The buffers' sizes over their lower bounds, summed (size_over_lower_bound's rules).
  double plan_ratio() const;
};

struct ProgramFigures {
  std::vector<MethodFigures> methods;  // in the file's order
  const MethodFigures* find(const std::string& method) const;
};

// `budget_steps`: the exact search's budget per buffer (negative: its default); 0 skips the
// optimum (BufferFigures::optimum stays empty). Errors: the program does not load or a method
// does not validate (naming it).
Result<ProgramFigures> program_figures(const std::string& file, int64_t budget_steps = -1);

// The device memory one load of a method takes, per device.
struct DeviceLoad {
  uint64_t allocations = 0;
  uint64_t bytes = 0;
};

struct LoadFigures {
  std::string method;
  Error status;                          // Ok, or why load_method failed
  std::map<Device, DeviceLoad> devices;  // successful device allocations
  size_t leaks = 0;                      // allocations still live after the Module was destroyed
  size_t misuse = 0;  // double frees, wrong-device frees, ... (mocks/ledger_records.h)
  // What stood in for what this build lacks ("backend AbsentBackend"), when it loaded.
  std::vector<std::string> stand_ins;
};

// Loads each of `methods` on its own (a fresh Module each, on `device`'s devices: by default
// simulated, unbacked memory), unloads it and destroys the Module, under `runtime`. A method the
// engine cannot load, a program it refuses, or (under ExecuTorch, which runs in a child process) a
// crash, is that method's failed load (LoadFigures::status). Errors only for a file that cannot be
// mapped. `data`: the data files (.ptd) of the program's external tensors (--data).
Result<std::vector<LoadFigures>> load_figures(const std::string& file,
                                              const std::vector<std::string>& methods,
                                              RuntimeKind runtime,
                                              const std::vector<std::string>& data = {},
                                              const DeviceSetup& device = DeviceSetup());

// The engines this build has: devplan, and executorch when it was built with it.
std::vector<RuntimeKind> built_runtimes();

}  // namespace devplan::harness
