#include "execution_check.h"

#include <rapidcheck.h>

#include <harness/scenario/writer.h>
#include <runtime_ext/module/module.h>

#include "host_model.h"
#include "simulated_devices.h"

namespace devplan::testing {

void check_execution_matches_model(const ProgramScenario& s, uint32_t salt) {
  SimulatedDevices dev;
  Module module(build_program(s));
  for (const MethodScenario& m : s.methods) {
    HostModel model(m);
    std::vector<EValue> inputs;
    std::vector<std::vector<uint8_t>> input_bytes;
    for (int32_t t : m.inputs) input_bytes.push_back(input_pattern(m, t, salt));
    for (size_t i = 0; i < m.inputs.size(); ++i) {
      Tensor host;
      host.dtype = m.tensors[m.inputs[i]].dtype;
      host.sizes = m.tensors[m.inputs[i]].shape;
      host.nbytes = input_bytes[i].size();
      host.data = input_bytes[i].data();
      inputs.push_back(EValue::from_tensor(host));
      model.set_input(m.inputs[i], input_bytes[i]);
    }
    Result<std::vector<EValue>> out = module.execute(m.name, inputs);
    RC_ASSERT(out.ok());
    RC_ASSERT(out->size() == m.outputs.size());
    model.execute();
    Result<const PlannedMemory*> planned = module.planned_memory(m.name);
    RC_ASSERT(planned.ok());
    for (size_t b = 0; b < m.buffers.size(); ++b) {
      const Span<uint8_t> span = (*planned)->buffer(b);
      std::vector<uint8_t> actual(span.size());
      if (span.size() > 0 && m.buffers[b].device.is_cpu()) {
        std::copy(span.begin(), span.end(), actual.begin());
      } else if (span.size() > 0) {
        RC_ASSERT(dev.cuda.peek(span.data(), span.size(), actual.data()).ok());
      }
      const std::string difference = model.buffer_difference(b, actual);
      RC_ASSERT(difference == std::string());
    }
    Result<Method*> method = module.method(m.name);
    RC_ASSERT(method.ok());
    for (size_t o = 0; o < m.outputs.size(); ++o) {
      std::vector<uint8_t> host(scenario_tensor_nbytes(m.tensors[m.outputs[o]]));
      RC_ASSERT((*method)->copy_output_to_host(o, host.data(), host.size()).ok());
      const std::string difference = model.tensor_difference(m.outputs[o], host);
      RC_ASSERT(difference == std::string());
    }
  }
  RC_ASSERT(!dev.cuda.has_misuse());
}

}  // namespace devplan::testing
