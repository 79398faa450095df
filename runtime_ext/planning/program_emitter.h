// Emission: planned methods written as a complete program through ProgramBuilder, ready for
// Module::load_method and `devplan run`.
//
//   Result<std::vector<MethodMemoryPlan>> plans = plan_methods(graphs);
//   Result<std::vector<uint8_t>> bytes = emit_program(*plans);
//
// Per method: one planned buffer per PlannedBuffer (the sparse device list follows from their
// devices); one planned tensor value per tensor that has a lifetime, on its device, in its
// buffer at its offset (tensors with no lifetime are not written); one chain with an
// instruction per node:
//   kernel    KernelCall of the node's operator ("aten::add.out" is name "aten::add", overload
//             "out") with args inputs, then outputs, then outputs again (out variants return
//             their out arguments); aten::add.out and aten::sub.out get an Int 1 alpha after
//             their inputs: [self, other, alpha, out, out];
//   delegate  a delegate of its own (backend id, no processed data, compile spec
//             "target_device" = the device as text), DelegateCall with args inputs then outputs.
// Inputs and outputs are the value indices of the method's input and output tensors.
#pragma once

#include <cstdint>
#include <vector>

#include <runtime_ext/planning/memory_plan.h>
#include <runtime_ext/writer/program_builder.h>

namespace devplan {

// Writes `plan` into `method`. InvalidArgument when a tensor dimension does not fit the file's
// int32 sizes or an input/output tensor has no lifetime.
Error emit_method(const MethodMemoryPlan& plan, MethodBuilder& method);

// A program with every method of `plans`, in order.
Result<std::vector<uint8_t>> emit_program(const std::vector<MethodMemoryPlan>& plans);

}  // namespace devplan
