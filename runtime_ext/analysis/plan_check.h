// Plan checking of any program, ours or ExecuTorch's (ahead of time: `devplan check`, `plot`,
// `replan` and the reports use it; the runtime does not): lifetimes of values derived from the
// instruction chains, every pair of planned tensors in one buffer whose lifetimes and bytes
// overlap, each buffer's size against its lower bound, and warnings. The rules (lifetimes,
// writes, views, mutable buffers): docs/plan-check.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <runtime_ext/planning/lifetime.h>
#include <runtime_ext/program/method_plan.h>

namespace devplan {

struct Overlap {
  size_t buffer = 0;
  int32_t value_a = 0;  // the one that starts first (lower value index on ties)
  int32_t value_b = 0;
  uint64_t a_begin = 0, a_end = 0;  // byte ranges [begin, end)
  uint64_t b_begin = 0, b_end = 0;
  int32_t first_step = 0;  // the shared steps, inclusive
  int32_t last_step = 0;
};

struct BufferCheck {
  size_t index = 0;
  Device device;
  uint64_t size = 0;
  uint64_t lower_bound = 0;       // largest total of live tensor bytes (aligned to 16) at one step,
                                  // under either reading of views (the smaller bound)
  uint64_t view_lower_bound = 0;  // the same under the view reading (`lifetimes`), the one a
                                  // plan that keeps every view's bytes with its base can reach
  size_t planned_tensors = 0;
};

// An instruction that touches memory on the wrong device (see check_devices).
struct DeviceViolation {
  int32_t step = 0;         // the instruction, numbered as lifetimes are
  std::string instruction;  // "aten::add.out", "delegate DevplanDeviceBackend"
  int32_t value = 0;
  std::string message;  // names the instruction, the value and both devices
};

struct MethodCheck {
  std::string name;
  int32_t num_steps = 0;
  std::vector<Lifetime> lifetimes;      // per value, the view reading (aliases folded in)
  std::vector<int32_t> alias_of;        // per value: its base when it is an alias, else -1
  std::vector<Lifetime> own_lifetimes;  // per value, the other reading: every tensor its own memory
  std::vector<bool> mutable_buffer;     // per value
  // per value: something writes it (an instruction by the rules above, or it is a method input
  // or has an initial value)
  std::vector<bool> written;
  std::vector<BufferCheck> buffers;
  std::vector<Overlap> overlaps;
  // Lines that do not change the verdict, e.g. "value 0: tagged cuda:0, planned in host
  // buffer 0 (legacy planning)".
  std::vector<std::string> warnings;
  // The parser's notes (MethodPlan::notes), then overlaps that only the view reading of a
  // never-written tensor has, e.g. "values 3 [0, 256) and 9 [256, 320) of buffer 1 share bytes
  // during instructions 13..13 only if value 8 ...".
  std::vector<std::string> notes;
  std::vector<DeviceViolation> device_violations;
};

// Device consistency of every instruction (a finding each, like an overlap):
// - a host kernel (any KernelCall but the et_copy ones) touches only host memory (a legacy
//   device-tagged tensor in a host buffer is host memory);
// - et_copy::_h2d_copy.out(self, out) copies host memory to a device, _d2h_copy.out a device to
//   host memory, with the same dtype and byte size on both sides;
// - a delegate with a `target_device` compile spec has its tensors on that device, except
//   method inputs and outputs, which skip-copy options may leave on the host.
std::vector<DeviceViolation> check_devices(const MethodPlan& plan);

// Lifetimes of every value of `plan` from its instructions, inputs and outputs (the first two
// rules above; no aliases or mutable buffers).
std::vector<Lifetime> value_lifetimes(const MethodPlan& plan, int32_t* num_steps);

MethodCheck check_method_plan(const MethodPlan& plan);

// "values 2 and 4 in buffer 0 share bytes [0, 16) during instructions 1..1".
std::string describe_overlap(const Overlap& overlap);

}  // namespace devplan
