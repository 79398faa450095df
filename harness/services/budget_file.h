// The budget file of `devplan budget`: per program and method, the memory figures a pull
// request must not grow. It is JSON with sorted keys, one method per line, so a change to it
// reads well in code review:
//
//   {
//     "format": "devplan-budget",
//     "programs": {
//       "model.pte": {
//         "methods": {
//           "forward": {"buffers": [{"device": "cpu:0", "size": 0}, ...],
//                       "loads": {"devplan": {"allocations": {"cuda:0": {"bytes": 48,
//                       "count": 1}}, "leaks": 0, "loaded": true, "misuse": 0,
//                       "probe": "clean"}, ...},
//                       "peak_device_bytes": {"cuda:0": 48}, "plan_ratio": 1.0,
//                       "planned_bytes": {"cpu:0": 0, "cuda:0": 48}}
//         },
//         "tolerance_pct": 5            (optional: this program's byte tolerance)
//       }
//     },
//     "schema_version": 1,
//     "tolerance_pct": 0                (optional: every program's byte tolerance)
//   }
//
// Programs are keyed by the file's name without its folder, so a budget recorded from
// `export/model.pte` checks `build/model.pte`. "loads" holds one entry per engine the
// recording build had (devplan, executorch).
#pragma once

#include <harness/engine/device_environment.h>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <harness/services/program_figures.h>
#include <runtime_ext/core/device.h>
#include <runtime_ext/core/result.h>

namespace devplan::harness {

constexpr int kBudgetSchemaVersion = 1;
constexpr const char* kBudgetFormat = "devplan-budget";

struct BudgetBuffer {
  Device device;
  uint64_t size = 0;
};

struct BudgetLoad {
  bool loaded = true;
  std::map<Device, DeviceLoad> allocations;  // per device: count and bytes
  uint64_t leaks = 0;
  uint64_t misuse = 0;
  std::string error;  // why the load failed, when measured (not kept in the file)
  // What stood in for what the build lacks ("backend AbsentBackend"); kept as "placeholders"
  // when there are any.
  std::vector<std::string> placeholders;
  // devplan probe of the method under this engine (probe.h): "clean", "not probed", "error" or
  // "N findings", kept as "probe"; its finding lines as "probe_findings" when there are any.
  // "" when not recorded (a budget from before probe): checked as clean.
  std::string probe;
  std::vector<std::string> probe_findings;
};

struct BudgetMethod {
  std::vector<BudgetBuffer> buffers;
  std::map<std::string, BudgetLoad> loads;  // by engine name ("devplan", "executorch")
  std::map<Device, uint64_t> peak_device_bytes;
  double plan_ratio = 1.0;  // rounded to 4 decimals
  std::map<Device, uint64_t> planned_bytes;
};

struct BudgetProgram {
  std::map<std::string, BudgetMethod> methods;
  std::optional<double> tolerance_pct;
};

struct Budget {
  std::map<std::string, BudgetProgram> programs;  // by file name
  std::optional<double> tolerance_pct;
};

// The key a program file has in a budget: its name without the folder ("model.pte").
std::string budget_key(const std::string& file);

// Reads a budget. Errors name the file and what is wrong: not JSON (with line and column), not
// a devplan budget (no "format": "devplan-budget"), a schema_version this build does not read,
// or a member of the wrong type ("programs.\"model.pte\".methods.forward.buffers[0].size: ...").
Result<Budget> read_budget(const std::string& path);

// The file's text (see above); read_budget(write_budget(b)) == b.
std::string write_budget(const Budget& budget);

// Measures one program: its figures and a load of each method under every engine this build
// has. Errors: the program does not load or a method does not validate.
// `data`: the data files (.ptd) the programs' external tensors are in (--data); `device`: where
// the loads allocate (--device, --device-map).
Result<BudgetProgram> measure_program(const std::string& file,
                                      const std::vector<std::string>& data = {},
                                      const DeviceSetup& device = DeviceSetup());

}  // namespace devplan::harness
