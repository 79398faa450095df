// Corruptions: one deliberate defect written into one method of a valid ProgramScenario
// through MethodBuilder's raw overrides. A refused kind (corruption_is_refused) makes the
// program invalid in a way the reader must reject with InvalidProgram (Program::load keeps the
// method's error, so method_meta and load_method of that method fail; the other methods are
// untouched). The others are defects ExecuTorch 1.5.1 reads without a check (the device list
// and tags): the reader reads them as ExecuTorch does and notes each (MethodPlan::notes).
//
//   ProgramScenario s = generate_program_scenario(3);
//   Corruption c{CorruptionKind::NegativeBufferSize, /*method=*/0, /*target=*/1, /*amount=*/5};
//   if (corruption_applies(s, c)) {
//     Result<std::vector<uint8_t>> bytes = build_corrupted_program(s, c);
//     Result<Program> p = Program::load_from_bytes(*bytes);
//     p->method_meta(s.methods[0].name).error();   // InvalidProgram ... negative size -6
//   }
//
// `method` and `target` are taken modulo the method's count of methods / buffers / tensors, so
// any numbers are usable; `amount` (>= 0) picks how far wrong a value is.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <harness/scenario/model.h>
#include <runtime_ext/core/result.h>

namespace devplan {

enum class CorruptionKind : uint8_t {
  // non_const_buffer_device: entries as written, plus...
  DuplicateDeviceEntry,  // ...the target buffer's entry twice (cuda:0 when it is a CPU buffer)
  BufferIdxZero,         // ...an entry with buffer_idx 0 (the reserved slot)
  BufferIdxNegative,     // ...an entry with buffer_idx -(1 + amount)
  BufferIdxPastEnd,      // ...an entry with buffer_idx num_buffers + 1 + amount
  UnknownDeviceType,     // the target buffer's entry with device type 2 + amount (at most 127)
  NegativeDeviceIndex,   // the target buffer's entry as CUDA with index -(1 + amount) (>= -128)
  // tensors (the target tensor):
  TensorDeviceMismatch,  // written on another device than its buffer's
  OffsetPastEnd,         // offset: the first multiple of 16 that does not fit, + 16 * amount
  MemoryIdZero,          // allocation_info.memory_id 0
  MemoryIdPastEnd,       // memory_id num_buffers + 1 + amount
  // buffer sizes:
  NegativeBufferSize,  // the target buffer's size written as -(1 + amount)
};

// "duplicate_device_entry", "buffer_idx_zero", ... (snake case of the enumerator).
const char* corruption_kind_name(CorruptionKind kind);

// Every kind, in declaration order.
std::vector<CorruptionKind> all_corruption_kinds();

// True for the kinds the reader refuses with InvalidProgram; false for those it reads as
// ExecuTorch does, with a note.
bool corruption_is_refused(CorruptionKind kind);

// True for the kinds whose target is a tensor (the method needs at least one tensor).
bool corruption_targets_tensor(CorruptionKind kind);

struct Corruption {
  CorruptionKind kind = CorruptionKind::DuplicateDeviceEntry;
  uint32_t method = 0;  // modulo the number of methods
  uint32_t target = 0;  // modulo the method's buffers (or tensors)
  uint32_t amount = 0;
};

// "negative_device_index in method forward, buffer 1, amount 5" (or "tensor 1").
std::string describe_corruption(const ProgramScenario& scenario, const Corruption& corruption);

// True when the corrupted method has what the kind needs: a buffer, or a tensor for the tensor
// kinds.
bool corruption_applies(const ProgramScenario& scenario, const Corruption& corruption);

// The program of `scenario` with the corruption written into its method. InvalidArgument when
// the corruption does not apply.
Result<std::vector<uint8_t>> build_corrupted_program(const ProgramScenario& scenario,
                                                     const Corruption& corruption);

}  // namespace devplan
