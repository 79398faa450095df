// Plan verification: checks a memory plan independently of the planner that made it. Every
// planned tensor must sit inside its buffer, at an aligned offset, in a buffer of its own
// device, and no two tensors whose lifetimes overlap (recomputed from the graph, both ends
// inclusive) may share a byte. Tensors of zero bytes share nothing.
//
//   std::vector<PlanViolation> v = verify_plan(plan);
//   if (!v.empty()) std::cerr << v[0].message;   // every violation, each pair once
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <runtime_ext/planning/memory_plan.h>
#include <runtime_ext/planning/offset_planner.h>

namespace devplan {

enum class PlanViolationKind : uint8_t {
  Overlap,      // two lifetime-overlapping tensors share bytes (tensor and other)
  Misaligned,   // offset not a multiple of the plan's alignment
  OutOfBuffer,  // offset + nbytes past the buffer's size
  WrongDevice,  // the buffer's device differs from the tensor's
  BadBuffer,    // buffer index out of range
  NotPlanned,   // the tensor has a lifetime but no place
  Malformed,    // the plan itself is inconsistent (sizes of its lists, nbytes, graph invalid)
};

// "overlap", "misaligned", "out_of_buffer", "wrong_device", "bad_buffer", "not_planned",
// "malformed".
const char* plan_violation_kind_name(PlanViolationKind kind);

struct PlanViolation {
  PlanViolationKind kind = PlanViolationKind::Malformed;
  int32_t tensor = -1;  // the tensor (or item) at fault, -1 when none
  int32_t other = -1;   // Overlap: the second tensor (or item); it started no earlier
  std::string message;  // names the method, tensors, buffer, bytes and steps
};

// Every violation of `plan`, ordered by kind of check: per-tensor checks in tensor order, then
// overlaps per buffer in order of the later tensor's start. Empty when the plan is valid.
std::vector<PlanViolation> verify_plan(const MethodMemoryPlan& plan);

// The same checks for items of one buffer: each planned item (first >= 0) within
// [0, buffer_size), its offset a multiple of `alignment`, and no two overlapping items sharing
// a byte (each item covers [offset, offset + size) with its unaligned size).
std::vector<PlanViolation> verify_offsets(const std::vector<PlanItem>& items,
                                          const std::vector<uint64_t>& offsets,
                                          uint64_t buffer_size, uint64_t alignment);

}  // namespace devplan
