// RapidCheck generators of device-planned programs that ExecuTorch's own runtime loads, for
// property tests written against ExecuTorch's Module. The programs are devplan's scenarios
// (harness/scenario) written by devplan's writer: methods with planned buffers on cpu:0 and
// cuda:0..3, tensors planned into them, and chains of aten::add.out, aten::mul.out and
// et_copy's _h2d_copy.out / _d2h_copy.out (kernels the executorch wheel has); no delegates and
// no Move or Free instructions, and initial values only in host buffers (ExecuTorch writes a
// device tensor's initial value with a host memcpy, which only simulated memory survives).
// Shrinking shrinks the scenario, so a counterexample prints as a few readable lines:
//
//   method forward: buffer 0 48 B cuda:2, buffer 1 0 B cpu:0
//     tensors: t0 float32[2] in buffer 0 at 16
//
//   RC_GTEST_PROP(ModuleProperties, LoadingAllocatesEachDeviceBufferOnce, ()) {
//     const auto program = *devplan::executorch_testing::gen_executorch_program();
//     TrackingExecutorchAllocator cuda;
//     ScopedExecutorchAllocator scoped(cuda);
//     Module module(std::make_unique<BufferDataLoader>(program.bytes.data(),
//                                                      program.bytes.size()));
//     RC_ASSERT(module.load_method(program.scenario.methods[0].name) == Error::Ok);
//     RC_ASSERT(cuda.tracking().ledger_size() ==
//               expected_device_allocations(program.scenario.methods[0]).size());
//   }
#pragma once

#include <cstdint>
#include <ostream>
#include <vector>

#include <rapidcheck.h>

#include <harness/scenario/model.h>
#include <harness/scenario/seeded_generator.h>

namespace devplan::executorch_testing {

struct ExecutorchProgram {
  ProgramScenario scenario;    // what was generated
  std::vector<uint8_t> bytes;  // the program file (.pte), written by devplan's writer
};

// The default options: 1-3 methods of up to 8 buffers of up to 64 KiB on cpu:0 and
// cuda:0..3, float32/int32/int64 tensors, the four kernels above.
ScenarioOptions executorch_program_options();

// Programs within `options`; its ops are cut down to Add, Mul, CopyH2D and CopyD2H whatever
// it says (ExecuTorch has no kernel for the others), and device tensors lose initial values.
rc::Gen<ExecutorchProgram> gen_executorch_program(
    const ScenarioOptions& options = executorch_program_options());

// One device allocation that loading a method makes in ExecuTorch: its planned buffer (the
// program's 1-based buffer index), device and size.
struct ExpectedDeviceAllocation {
  uint32_t buffer = 0;
  Device device;
  uint64_t size = 0;
};

// What ExecuTorch's load_method allocates on devices for `method`: one allocation per planned
// buffer on a device, in buffer order, empty buffers included (ExecuTorch 1.5.1 asks for 0
// bytes; docs/executorch-divergences.md, zero-size-device-buffer).
std::vector<ExpectedDeviceAllocation> expected_device_allocations(const MethodScenario& method);

void showValue(const ExecutorchProgram& program, std::ostream& os);

}  // namespace devplan::executorch_testing
