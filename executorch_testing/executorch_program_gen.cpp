#include <executorch_testing/executorch_program_gen.h>

#include <algorithm>

#include <harness/scenario/rapidcheck_generators.h>
#include <harness/scenario/writer.h>

namespace devplan::executorch_testing {
namespace {

bool executorch_has_kernel(ScenarioOp op) {
  return op == ScenarioOp::Add || op == ScenarioOp::Mul || op == ScenarioOp::CopyH2D ||
         op == ScenarioOp::CopyD2H;
}

}  // namespace

ScenarioOptions executorch_program_options() {
  ScenarioOptions o;
  o.max_methods = 3;
  o.max_buffers = 8;
  o.max_buffer_bytes = uint64_t{64} << 10;
  o.ops = {ScenarioOp::Add, ScenarioOp::Mul, ScenarioOp::CopyH2D, ScenarioOp::CopyD2H};
  return o;
}

rc::Gen<ExecutorchProgram> gen_executorch_program(const ScenarioOptions& options) {
  ScenarioOptions o = options;
  o.ops.erase(std::remove_if(o.ops.begin(), o.ops.end(),
                             [](ScenarioOp op) { return !executorch_has_kernel(op); }),
              o.ops.end());
  return rc::gen::map(testing::gen_program_scenario(o), [](ProgramScenario s) {
    for (MethodScenario& m : s.methods) {
      for (ScenarioTensor& t : m.tensors) {
        if (!m.buffers[t.buffer].device.is_cpu()) t.initial = false;
      }
    }
    ExecutorchProgram p;
    p.bytes = build_program(s);
    p.scenario = std::move(s);
    return p;
  });
}

std::vector<ExpectedDeviceAllocation> expected_device_allocations(const MethodScenario& method) {
  std::vector<ExpectedDeviceAllocation> out;
  for (size_t i = 0; i < method.buffers.size(); ++i) {
    const ScenarioBuffer& b = method.buffers[i];
    if (b.device.is_cpu()) continue;
    out.push_back({static_cast<uint32_t>(i + 1), b.device, b.size});
  }
  return out;
}

void showValue(const ExecutorchProgram& program, std::ostream& os) {
  os << "\n" << describe_program_scenario(program.scenario);
}

}  // namespace devplan::executorch_testing
