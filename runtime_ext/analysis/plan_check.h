// Plan checking of any program, ours or ExecuTorch's (ahead of time: `devplan check`, `plot`,
// `replan` and the reports use it; the runtime does not): lifetimes of values derived from the
// instruction chains, then every pair of planned tensors in one buffer whose lifetimes and bytes
// overlap, plus each buffer's size against its lower bound, and warnings about what is planned
// in an unusual way (legacy device tensors in host buffers).
//
// Lifetimes and overlaps are runtime_ext/planning's: the lifetime rules of lifetime.h
// (LifetimeRecorder), the overlap check of plan_verifier.h (verify_offsets) and the lower bound
// of offset_planner.h (live_bytes_lower_bound), applied to a program's MethodPlan. The rules
// (documented in docs/commands/check.md; `check`, `plot` and the lower bound use them):
// - Steps are the instructions of all chains in order. A value lives from the first to the last
//   instruction that names it, both ends inclusive (a DelegateCall's args are its inputs
//   followed by its outputs; a tensor list names its items).
// - A method input lives from step 0 to its last use (the exporter reuses its bytes after
//   that); a method output from its definition to the last step.
// - Writes: an out-variant kernel writes the trailing args it returns (the out arguments, and
//   the items of a returned tensor list); a
//   MoveCall writes its target; a DelegateCall writes the args it names first; method inputs
//   and tensors with an initial value count as written.
// - An alias (a view): a planned tensor that no instruction writes and that lies inside the
//   bytes of another planned tensor of the same buffer. Its base is the written tensor holding
//   those bytes when the view is first used: the one written most recently before that step
//   (not at it: an instruction reads before it writes; ties: the one named at that step or
//   later, then the smaller, then the lower index). When a tensor written later, still before
//   the first use, overwrote some of the view's bytes, the view has no base (a warning).
// - That a view is one is devplan's inference (no instruction says so); the other reading is
//   that it is memory of its own, live at its own instructions (scratch memory of a kernel, as a
//   quantized pooling kernel's). Findings hold under both readings: overlaps are computed over
//   every tensor's own lifetime (the view included, never against a tensor it may be a view
//   of), and an overlap that only the view reading has (the view's uses keeping its base alive)
//   is a note (which calls the view scratch when every candidate base was read after its write
//   and not used again before the view's first use). The lower bound is the smaller of the two
//   readings' bounds. `lifetimes` is the view reading (a view's uses keep its base alive),
//   which plots and replanning use.
// - A mutable buffer (state kept across executions): a planned tensor, not an input and not an
//   alias, whose first use reads it. It lives for the whole method.
// A planned tensor that is never named has no lifetime and conflicts with nothing.
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
