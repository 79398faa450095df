// ProgramDiff: what changed between two versions of a program (`devplan diff OLD NEW`), per
// method matched by name. Every change is one Change: a line of text and a JSON object
// {"what": ..., <which>, "old": ..., "new": ...}:
//
//   what                     which               old/new
//   buffer.size              index, device       bytes (also lower_bound, optimum,
//                                                planned_tensors; optimum null when unproven)
//   buffer.device            index               "cuda:0"
//   buffer.added/removed     index               {"device", "size", "planned_tensors"} or null
//   peak_device_bytes        device              bytes
//   copies.h2d, copies.d2h                       instruction counts
//   tensor.device            value               "cpu:0"
//   input.value, output.value position           "float32[2, 2] on cpu:0 (16 B)" or null
//   load.allocations         runtime, device     counts (also load.bytes)
//   load.leaks, load.misuse  runtime             counts
//   load.status              runtime             "loaded" or the load error
//
// Tensors are matched by value index, buffers by index, inputs and outputs by position.
//
//   Result<ProgramDiff> d = diff_programs("old.pte", "new.pte", options);
//   d->differences(); d->growth (peak device bytes beyond --fail-on-growth)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <harness/engine/device_environment.h>
#include <harness/engine/runtime_kind.h>
#include <harness/json/json.h>
#include <runtime_ext/core/device.h>
#include <runtime_ext/core/result.h>

namespace devplan::harness {

struct DiffOptions {
  std::optional<RuntimeKind> runtime;        // --runtime: also compare the loads' ledgers
  std::optional<double> fail_on_growth_pct;  // --fail-on-growth PCT
  int64_t budget_steps = -1;                 // the exact search's budget for the optimum
  std::vector<std::string> data_paths;       // --data: data files (.ptd), for both programs
  DeviceSetup device;                        // --device, --device-map: where --runtime loads
};

struct Change {
  std::string text;  // "buffer 1 (cuda:0): size 48 B -> 64 B (+16 B, +33.33%)"
  Json json;
};

enum class MethodStatus { Same, Changed, Added, Removed };
const char* method_status_name(MethodStatus status);  // "same", "changed", ...

struct MethodDiff {
  std::string name;
  MethodStatus status = MethodStatus::Same;
  std::vector<Change> changes;  // Added/Removed: the method's buffers, one change each
};

// Peak device bytes of a method on a device that grew beyond --fail-on-growth.
struct Growth {
  std::string method;
  Device device;
  uint64_t old_bytes = 0;
  uint64_t new_bytes = 0;
  std::string text;  // "method forward: peak device bytes on cuda:0 grew from ... (...)"
};

struct ProgramDiff {
  std::string old_file;
  std::string new_file;
  DiffOptions options;
  std::vector<MethodDiff> methods;  // the old file's order, then methods only the new one has
  std::vector<Growth> growth;       // empty without fail_on_growth_pct

  size_t differences() const;  // changes, counting an added or removed method as one
};

// Errors: either file does not load (naming it), a method does not validate.
Result<ProgramDiff> diff_programs(const std::string& old_file, const std::string& new_file,
                                  const DiffOptions& options);

}  // namespace devplan::harness
