// Skip-copy programs (runtime-bound device inputs and outputs, whose memory the caller
// supplies) through the harness engine, with the k-th device allocation failing: planned
// buffers first, then the caller's inputs, then its outputs. A failed load leaves nothing
// live and names what could not be allocated; a fault past the last allocation changes nothing.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <harness/engine/device_environment.h>
#include <harness/engine/engine.h>
#include <runtime_ext/writer/program_builder.h>

#include "property.h"

namespace devplan::testing {
namespace {

struct CallerTensor {
  DeviceIndex device = 0;
  std::vector<int32_t> shape;
};

struct SkipCopyMethod {
  std::vector<std::pair<uint64_t, DeviceIndex>> planned;  // device buffers (size, index)
  std::vector<CallerTensor> inputs;
  std::vector<CallerTensor> outputs;  // distinct tensors from the inputs
};

rc::Gen<CallerTensor> gen_caller_tensor() {
  return rc::gen::build<CallerTensor>(
      rc::gen::set(&CallerTensor::device, rc::gen::inRange<DeviceIndex>(0, 4)),
      rc::gen::set(
          &CallerTensor::shape, rc::gen::mapcat(rc::gen::inRange<size_t>(0, 4), [](size_t rank) {
            return rc::gen::container<std::vector<int32_t>>(rank, rc::gen::inRange<int32_t>(1, 9));
          })));
}

std::vector<uint8_t> build_skip_copy_program(const SkipCopyMethod& m) {
  ProgramBuilder builder;
  MethodBuilder& mb = builder.add_method("forward");
  for (const auto& [size, index] : m.planned) mb.add_buffer(size, Device::cuda(index));
  auto add = [&mb](const CallerTensor& t) {
    return mb.add_runtime_tensor(
        TensorSpec::of(ScalarType::Float, t.shape, Device::cuda(t.device)));
  };
  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs;
  for (const CallerTensor& t : m.inputs) inputs.push_back(add(t));
  for (const CallerTensor& t : m.outputs) outputs.push_back(add(t));
  mb.set_inputs(inputs);
  mb.set_outputs(outputs);
  return builder.build();
}

uint64_t float_bytes(const CallerTensor& t) {
  uint64_t n = 4;
  for (int32_t d : t.shape) n *= static_cast<uint64_t>(d);
  return n;
}

DEVPLAN_PROP(Faults, FailingTheKthAllocationOfASkipCopyLoadLeavesNothingLive, ()) {
  SkipCopyMethod m;
  m.planned = *rc::gen::container<std::vector<std::pair<uint64_t, DeviceIndex>>>(
      *rc::gen::inRange<size_t>(0, 4),
      rc::gen::pair(rc::gen::inRange<uint64_t>(1, 4097), rc::gen::inRange<DeviceIndex>(0, 4)));
  m.inputs = *rc::gen::container<std::vector<CallerTensor>>(*rc::gen::inRange<size_t>(0, 5),
                                                            gen_caller_tensor());
  m.outputs = *rc::gen::container<std::vector<CallerTensor>>(*rc::gen::inRange<size_t>(0, 4),
                                                             gen_caller_tensor());
  // Allocation k (1-based) in load order: what it is for.
  std::vector<std::string> allocations;
  for (size_t b = 0; b < m.planned.size(); ++b) {
    allocations.push_back("buffer " + std::to_string(b));
  }
  for (size_t i = 0; i < m.inputs.size(); ++i) allocations.push_back("input " + std::to_string(i));
  for (size_t o = 0; o < m.outputs.size(); ++o) {
    allocations.push_back("output " + std::to_string(o));
  }
  const size_t k = *rc::gen::inRange<size_t>(1, allocations.size() + 2);
  RC_TAG(k <= allocations.size() ? allocations[k - 1].substr(0, allocations[k - 1].find(' '))
                                 : std::string("no fault"));

  Result<std::unique_ptr<harness::DeviceEnvironment>> env =
      harness::DeviceEnvironment::create(harness::DeviceKind::Simulated);
  RC_ASSERT(env.ok());
  TrackingDeviceAllocator& tracking = *(*env)->tracking();
  {
    Result<std::unique_ptr<harness::EngineSession>> session =
        harness::open_devplan_session(build_skip_copy_program(m), **env, {});
    RC_ASSERT(session.ok());
    tracking.fail_allocation_at(tracking.allocate_calls() + k);
    const Error err = (*session)->load_method("forward");
    if (k > allocations.size()) {
      RC_ASSERT(err.ok());
      RC_ASSERT(tracking.live_count() == allocations.size());
      for (size_t i = 0; i < m.inputs.size(); ++i) {
        RC_ASSERT(tracking.live_allocations()[m.planned.size() + i].size ==
                  float_bytes(m.inputs[i]));
      }
    } else {
      RC_ASSERT(err.code() == ErrorCode::MemoryAllocationFailed);
      const std::string& what = allocations[k - 1];
      const bool caller = what.rfind("buffer", 0) != 0;
      RC_ASSERT(err.message().find(caller ? "forward/" + what : "buffer " + what.substr(7)) !=
                std::string::npos);
      RC_ASSERT(!(*session)->is_method_loaded("forward"));
      RC_ASSERT(tracking.live_count() == 0u);
    }
  }
  RC_ASSERT(tracking.live_count() == 0u);
  RC_ASSERT(!tracking.has_misuse());
}

}  // namespace
}  // namespace devplan::testing
