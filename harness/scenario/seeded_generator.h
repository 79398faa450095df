// Seeded generation of ProgramScenarios (model.h), in two steps:
//
//   1. a draft (ProgramDraft) describes a program by free choices: buffers, a few tensor types,
//      tensors that name a type, a buffer and an offset by arbitrary numbers, values, and
//      instructions that name an op plus four arbitrary "choice" numbers;
//   2. resolve_program_draft turns ANY draft into a valid, executable ProgramScenario: choices
//      are taken modulo the candidates that fit (a tensor goes to the first buffer, from the
//      one it names, that can hold it; an instruction picks operands of matching dtype, shape
//      and device), and what cannot be placed is dropped.
//
// generate_program_draft draws a draft from a seed (SplitMix64; no other dependency, the same
// draft on every platform); the property tests draw drafts with RapidCheck instead, so that
// shrinking any list of a draft still gives a valid scenario.
//
//   ScenarioOptions options;                       // 1-4 methods, up to 32 buffers each, ...
//   ProgramScenario s = generate_program_scenario(42, options);   // same seed, same scenario
//   std::vector<uint8_t> bytes = build_program(s);                // writer.h
//
// Costs, default options, one core (RelWithDebInfo): about 35,000 scenarios per second
// generated and resolved, about 14,000 per second with build_program as well.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <harness/scenario/model.h>

namespace devplan {

struct ScenarioOptions {
  size_t min_methods = 1;
  size_t max_methods = 4;
  size_t max_buffers = 32;                        // per method
  uint64_t max_buffer_bytes = uint64_t{1} << 20;  // the largest "large" buffer
  // Where buffers may be placed (each buffer picks one uniformly).
  std::vector<Device> devices = {Device::cpu(), Device::cuda(0), Device::cuda(1), Device::cuda(2),
                                 Device::cuda(3)};
  std::vector<ScalarType> dtypes = {ScalarType::Float, ScalarType::Int, ScalarType::Long};
  size_t max_tensor_types = 3;  // distinct (dtype, shape) pairs per method
  size_t max_rank = 3;
  int32_t max_dim = 4;
  size_t max_tensors = 24;  // per method (before those that do not fit are dropped)
  size_t max_values = 8;
  size_t max_instructions = 16;  // per method (before those without operands are dropped)
  // The instructions a method may hold; a drawn instruction of another kind is left out. The
  // default is every kind; executorch_testing's generator leaves out DelegateAdd, Move and Free
  // (programs stock ExecuTorch loads and runs with its own kernels).
  std::vector<ScenarioOp> ops = {ScenarioOp::Add,     ScenarioOp::Mul,         ScenarioOp::CopyH2D,
                                 ScenarioOp::CopyD2H, ScenarioOp::DelegateAdd, ScenarioOp::Move,
                                 ScenarioOp::Free};
  size_t max_inputs = 2;
  size_t max_outputs = 2;
};

// The names methods get, by position: "forward", "encode", "decode", "prefill", then
// "method4", "method5", ...
std::string scenario_method_name(size_t index);

// A (dtype, shape) pair that tensors of a draft share, so that operands match.
struct TensorTypeDraft {
  ScalarType dtype = ScalarType::Float;
  std::vector<int32_t> shape;
};

struct TensorDraft {
  uint32_t type = 0;     // a tensor type, modulo the number of types
  uint32_t buffer = 0;   // the first buffer tried, modulo the number of buffers
  uint64_t offset = 0;   // rounded down to 16; taken modulo the offsets that fit
  bool initial = false;  // planned with an initial value (kept only when it has bytes)
};

struct InstructionDraft {
  ScenarioOp op = ScenarioOp::Add;
  std::array<uint32_t, 4> choices = {0, 0, 0, 0};  // operand choices (see resolve_method_draft)
};

struct MethodDraft {
  std::string name;  // empty or taken: scenario_method_name(position)
  std::vector<ScenarioBuffer> buffers;
  std::vector<TensorTypeDraft> types;
  std::vector<TensorDraft> tensors;
  std::vector<ScenarioValue> values;  // TensorList items are tensor choices
  std::vector<InstructionDraft> instructions;
  std::vector<uint32_t> inputs;   // tensor choices
  std::vector<uint32_t> outputs;  // tensor choices
};

struct ProgramDraft {
  std::vector<MethodDraft> methods;  // an empty draft resolves to one empty method "forward"
};

// Resolves one method (see the overview). Buffers are kept as they are, except that a device
// validate_program_scenario refuses becomes cpu:0. Tensors: a type with an unknown dtype is
// float32 and negative dimensions are 0; a tensor that fits in no buffer, or whose draft has no
// type, is dropped. TensorList items are taken modulo the tensors (dropped when there are
// none). An empty IntList or DoubleList becomes [0] (kept so that pinned scenarios stay the
// same; empty numeric lists are covered by the reader's own tests). Instructions pick, from
// choices c0..c3:
//   add/mul   a = c0-th host tensor of a kernel dtype; b, out = c1-th, c2-th host tensors of
//             a's type; add's alpha = c3-th among the Int values (and Double values when the
//             dtype is floating)
//   h2d       out = c0-th device tensor that has a host tensor of its type; self = c1-th such
//             host tensor (d2h: self and out swapped)
//   delegate  a = c0-th device tensor of a kernel dtype; b, out = c1-th, c2-th tensors of a's
//             type on a's device
//   move      from = c0-th value; to = c1-th value of its kind
//   free      the c0-th of tensors then values
// and are dropped when there is no candidate. Inputs and outputs are taken modulo the tensors,
// duplicates dropped. The result passes validate_program_scenario.
MethodScenario resolve_method_draft(const MethodDraft& draft);

// Resolves every method; names that are empty or already taken become
// scenario_method_name(position) (or, if that is taken too, "method<position>_<n>").
ProgramScenario resolve_program_draft(const ProgramDraft& draft);

// A draft drawn from `seed` within `options`. Deterministic and platform independent.
ProgramDraft generate_program_draft(uint64_t seed,
                                    const ScenarioOptions& options = ScenarioOptions());

// resolve_program_draft(generate_program_draft(seed, options)).
ProgramScenario generate_program_scenario(uint64_t seed,
                                          const ScenarioOptions& options = ScenarioOptions());

}  // namespace devplan
