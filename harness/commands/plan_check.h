// Plan checking of any program, ours or ExecuTorch's: lifetimes of values derived from the
// instruction chains, then every pair of planned tensors in one buffer whose lifetimes and bytes
// overlap, plus each buffer's size against its lower bound.
//
// Lifetime rule (the planner's): steps are the instructions of all chains in order; a value
// lives from the first to the last instruction that names it, both ends inclusive (a
// DelegateCall's args are its inputs followed by its outputs; a tensor list names its items);
// a method input lives from step 0, a method output to the last step. A planned tensor that is
// never named has no lifetime and conflicts with nothing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <runtime_ext/program/method_plan.h>

namespace devplan::harness {

struct ValueLifetime {
  int32_t first = -1;  // -1: never live
  int32_t last = -1;
};

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
  uint64_t lower_bound = 0;  // largest total of live tensor bytes (aligned to 16) at one step
  size_t planned_tensors = 0;
};

struct MethodCheck {
  std::string name;
  int32_t num_steps = 0;
  std::vector<ValueLifetime> lifetimes;  // per value
  std::vector<BufferCheck> buffers;
  std::vector<Overlap> overlaps;
};

// Lifetimes of every value of `plan` by the rule above.
std::vector<ValueLifetime> value_lifetimes(const MethodPlan& plan, int32_t* num_steps);

MethodCheck check_method_plan(const MethodPlan& plan);

// "values 2 and 4 in buffer 0 share bytes [0, 16) during instructions 1..1".
std::string describe_overlap(const Overlap& overlap);

}  // namespace devplan::harness
