// Properties over the option space, each at its boundary: the step limit, the host byte cap,
// device capacities, shared arenas, copies whose operands agree in bytes but not in type, and
// copy faults in one direction. Each case draws a program and an option value next to what the
// program needs, so that the last accepted and the first rejected value are both reached.
#include <map>
#include <string>

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <harness/scenario/writer.h>
#include <runtime_ext/module/module.h>

#include <harness/scenario/rapidcheck_generators.h>
#include "property.h"
#include "simulated_devices.h"

namespace devplan::testing {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Host bytes load_method takes for method `m`: its CPU buffers.
uint64_t host_bytes(const MethodScenario& m) {
  uint64_t total = 0;
  for (const ScenarioBuffer& b : m.buffers) {
    if (b.device.is_cpu()) total += b.size;
  }
  return total;
}

bool has_device_buffers(const MethodScenario& m) {
  for (const ScenarioBuffer& b : m.buffers) {
    if (!b.device.is_cpu()) return true;
  }
  return false;
}

// ---- The step limit -------------------------------------------------------------------------

// execute() runs a chain of n instructions with max_steps = n, and fails with InvalidState at
// instruction n-1 (naming the limit) with max_steps = n - 1.
DEVPLAN_PROP(Options, StepLimitAtTheChainsLength, ()) {
  const ProgramScenario s = *gen_program_scenario();
  const size_t mi = *rc::gen::inRange<size_t>(0, s.methods.size());
  const MethodScenario& m = s.methods[mi];
  const uint64_t n = m.instructions.size();
  RC_PRE(n > 0u);
  const bool at_limit = *rc::gen::arbitrary<bool>();
  SimulatedDevices dev;
  ModuleOptions options;
  options.runtime.max_steps = at_limit ? n : n - 1;
  Module module(build_program(s), options);
  Result<std::vector<EValue>> out = module.execute(m.name, {});
  if (at_limit) {
    RC_ASSERT(out.ok());
    RC_ASSERT(out->size() == m.outputs.size());
  } else {
    RC_ASSERT(out.code() == ErrorCode::InvalidState);
    RC_ASSERT(out.error().message() == "method '" + m.name + "': chain 0 instruction " +
                                           std::to_string(n - 1) + ": more than " +
                                           std::to_string(n - 1) +
                                           " instructions executed; the chain does not end");
  }
}

// ---- The host byte cap ----------------------------------------------------------------------

// A cap equal to the method's host bytes loads it; one byte less fails before any device
// allocation, naming the cap.
DEVPLAN_PROP(Options, HostByteCapAtTheMethodsNeed, ()) {
  const ProgramScenario s = *gen_program_scenario();
  const MethodScenario& m = s.methods[*rc::gen::inRange<size_t>(0, s.methods.size())];
  const uint64_t need = host_bytes(m);
  RC_PRE(need > 0u);
  const bool at_limit = *rc::gen::arbitrary<bool>();
  SimulatedDevices dev;
  ModuleOptions options;
  options.max_host_buffer_bytes = at_limit ? need : need - 1;
  Module module(build_program(s), options);
  const Error err = module.load_method(m.name);
  if (at_limit) {
    RC_ASSERT(err.ok());
    RC_ASSERT(live_allocations(dev.cuda) == expected_allocations(m));
  } else {
    RC_ASSERT(err.code() == ErrorCode::MemoryAllocationFailed);
    RC_ASSERT(contains(err.message(), "host buffers would exceed the limit of " +
                                          std::to_string(need - 1) + " bytes"));
    RC_ASSERT(!module.is_method_loaded(m.name));
    RC_ASSERT(dev.cuda.live_count() == 0u);
  }
  RC_ASSERT(!dev.cuda.has_misuse());
}

// ---- Device capacities ----------------------------------------------------------------------

// Every device's capacity set to exactly what the method needs on it loads the method; one
// device one byte short fails on that device, with nothing left live.
DEVPLAN_PROP(Options, DeviceCapacityAtTheMethodsNeed, ()) {
  const ProgramScenario s = *gen_program_scenario();
  const MethodScenario& m = s.methods[*rc::gen::inRange<size_t>(0, s.methods.size())];
  std::map<DeviceIndex, uint64_t> need;
  for (const ScenarioBuffer& b : m.buffers) {
    if (!b.device.is_cpu() && b.size > 0) need[b.device.index] += b.size;
  }
  RC_PRE(!need.empty());
  std::vector<DeviceIndex> used;
  for (const auto& [index, bytes] : need) used.push_back(index);
  const bool at_limit = *rc::gen::arbitrary<bool>();
  const DeviceIndex short_device = *rc::gen::elementOf(used);
  SimulatedDevices dev;
  for (const auto& [index, bytes] : need) {
    const bool short_here = !at_limit && index == short_device;
    RC_ASSERT(dev.cuda.set_capacity(index, short_here ? bytes - 1 : bytes).ok());
  }
  Module module(build_program(s));
  const Error err = module.load_method(m.name);
  if (at_limit) {
    RC_ASSERT(err.ok());
    RC_ASSERT(live_allocations(dev.cuda) == expected_allocations(m));
    for (const auto& [index, bytes] : need) RC_ASSERT(dev.cuda.stats(index).current_bytes == bytes);
  } else {
    RC_ASSERT(err.code() == ErrorCode::MemoryAllocationFailed);
    RC_ASSERT(dev.cuda.live_count() == 0u);
    RC_ASSERT(dev.cuda.failed_allocations().size() == 1u);
    RC_ASSERT(dev.cuda.failed_allocations()[0].device == Device::cuda(short_device));
  }
  RC_ASSERT(!dev.cuda.has_misuse());
}

// ---- Shared arenas --------------------------------------------------------------------------

// With share_memory_arenas, a method with a device buffer is NotSupported (naming its first
// one), and every CPU-only method loads onto the same host buffers: tensors of one buffer index
// share one base across methods, and nothing reaches a device allocator. A cap at the sum of
// the largest sizes per buffer index is enough; one byte less fails.
DEVPLAN_PROP(Options, SharedArenasServeCpuOnlyMethods, ()) {
  const ProgramScenario s = *gen_program_scenario();
  std::vector<uint64_t> shared_sizes;
  for (const MethodScenario& m : s.methods) {
    if (has_device_buffers(m)) continue;
    if (shared_sizes.size() < m.buffers.size()) shared_sizes.resize(m.buffers.size(), 0);
    for (size_t b = 0; b < m.buffers.size(); ++b) {
      shared_sizes[b] = std::max(shared_sizes[b], m.buffers[b].size);
    }
  }
  uint64_t shared_total = 0;
  for (uint64_t size : shared_sizes) shared_total += size;
  const bool short_cap = shared_total > 0 && *rc::gen::arbitrary<bool>();
  SimulatedDevices dev;
  ModuleOptions options;
  options.share_memory_arenas = true;
  options.max_host_buffer_bytes = short_cap ? shared_total - 1 : shared_total;
  Module module(build_program(s), options);
  std::map<uint32_t, const uint8_t*> base_of_buffer;
  for (const MethodScenario& m : s.methods) {
    const Error err = module.load_method(m.name);
    if (has_device_buffers(m)) {
      size_t first = 0;
      while (m.buffers[first].device.is_cpu()) ++first;
      RC_ASSERT(err.code() == ErrorCode::NotSupported);
      RC_ASSERT(err.message() == "method '" + m.name +
                                     "': share_memory_arenas does not support device buffers "
                                     "(buffer " +
                                     std::to_string(first) + " is on " +
                                     m.buffers[first].device.to_string() + ")");
      continue;
    }
    if (short_cap) {
      RC_ASSERT(err.code() == ErrorCode::MemoryAllocationFailed);
      RC_ASSERT(err.message() == "shared arenas would exceed the limit of " +
                                     std::to_string(shared_total - 1) + " bytes");
      continue;
    }
    RC_ASSERT(err.ok());
    // Running it writes its tensors into the shared buffers, up to their last byte.
    RC_ASSERT(module.execute(m.name, {}).ok());
    Result<Method*> method = module.method(m.name);
    RC_ASSERT(method.ok());
    for (size_t t = 0; t < m.tensors.size(); ++t) {
      const ScenarioTensor& x = m.tensors[t];
      if (m.buffers[x.buffer].size == 0) continue;
      const auto* data =
          static_cast<const uint8_t*>((*method)->value(m.tensor_value_index(t)).tensor.data);
      const uint8_t* base = data - x.offset;
      const auto [it, first_seen] = base_of_buffer.emplace(x.buffer, base);
      if (!first_seen) RC_ASSERT(it->second == base);
    }
  }
  RC_ASSERT(dev.cuda.allocate_calls() == 0u);
  RC_ASSERT(dev.cpu.allocate_calls() == 0u);
}

// ---- Copies whose operands agree in bytes only ----------------------------------------------

// The same byte count in another type: a dtype of the same element size, or the same elements
// in another shape. False when the tensor has neither (an element size no other dtype shares).
bool retype_keeping_bytes(ScenarioTensor* t, bool change_dtype) {
  if (change_dtype) {
    static const std::map<ScalarType, ScalarType> same_size = {
        {ScalarType::Float, ScalarType::Int},   {ScalarType::Int, ScalarType::Float},
        {ScalarType::Double, ScalarType::Long}, {ScalarType::Long, ScalarType::Double},
        {ScalarType::Short, ScalarType::Half},  {ScalarType::Half, ScalarType::Short},
        {ScalarType::Byte, ScalarType::Char},   {ScalarType::Char, ScalarType::Byte},
        {ScalarType::Bool, ScalarType::Byte},
    };
    const auto it = same_size.find(t->dtype);
    if (it == same_size.end()) return false;
    t->dtype = it->second;
    return true;
  }
  int64_t elements = 1;
  for (int32_t d : t->shape) elements *= d;
  if (t->shape.size() == 1) {
    t->shape = {1, t->shape[0]};
  } else {
    t->shape = {static_cast<int32_t>(elements)};
  }
  return true;
}

// An h2d or d2h copy whose out tensor has self's byte count but another dtype or shape fails
// when it runs, naming the instruction: InvalidType for the dtype, InvalidArgument for the
// shape. The instructions before it run; nothing is left live or misused.
DEVPLAN_PROP(Copies, SameBytesInAnotherTypeAreRejected, ()) {
  ProgramScenario s = *gen_program_scenario();
  std::vector<std::pair<size_t, size_t>> copies;  // (method, instruction)
  for (size_t mi = 0; mi < s.methods.size(); ++mi) {
    const MethodScenario& m = s.methods[mi];
    for (size_t k = 0; k < m.instructions.size(); ++k) {
      const ScenarioOp op = m.instructions[k].op;
      if (op == ScenarioOp::CopyH2D || op == ScenarioOp::CopyD2H) copies.emplace_back(mi, k);
    }
  }
  RC_PRE(!copies.empty());
  const auto [mi, k] = *rc::gen::elementOf(copies);
  const bool change_dtype = *rc::gen::arbitrary<bool>();
  MethodScenario& m = s.methods[mi];
  // A new tensor over the out tensor's bytes, so that no other instruction sees the change.
  ScenarioTensor retyped = m.tensors[m.instructions[k].tensors[1]];
  RC_PRE(retype_keeping_bytes(&retyped, change_dtype));
  RC_TAG(change_dtype ? "dtype" : "shape");
  m.tensors.push_back(retyped);
  m.instructions[k].tensors[1] = static_cast<int32_t>(m.tensors.size() - 1);

  SimulatedDevices dev;
  {
    Module module(build_program(s));
    Result<std::vector<EValue>> out = module.execute(m.name, {});
    RC_ASSERT(out.code() == (change_dtype ? ErrorCode::InvalidType : ErrorCode::InvalidArgument));
    const std::string where = "method '" + m.name + "': chain 0 instruction " + std::to_string(k);
    RC_ASSERT(out.error().message().rfind(where, 0) == 0u);
    RC_ASSERT(contains(out.error().message(), change_dtype ? " differs from self's " : "out ("));
  }
  RC_ASSERT(dev.cuda.live_count() == 0u);
  RC_ASSERT(!dev.cuda.has_misuse());
}

// ---- Copy faults ----------------------------------------------------------------------------

// Copies failing in one direction make execute() fail with Internal exactly when the method
// copies at least one byte in that direction (counted by a run without the fault); the run
// without it succeeds. Either way nothing is left live or misused.
DEVPLAN_PROP(Faults, FailingCopiesInOneDirection, ()) {
  const ProgramScenario s = *gen_program_scenario();
  const MethodScenario& m = s.methods[*rc::gen::inRange<size_t>(0, s.methods.size())];
  const bool to_device = *rc::gen::arbitrary<bool>();
  const std::vector<uint8_t> program = build_program(s);
  uint64_t copies = 0;
  {
    SimulatedDevices dev;
    Module module(program);
    RC_ASSERT(module.execute(m.name, {}).ok());
    for (int d = 0; d < 4; ++d) {
      const DeviceAllocationStats stats = dev.cuda.stats(static_cast<DeviceIndex>(d));
      copies += to_device ? stats.host_to_device_copies : stats.device_to_host_copies;
    }
  }
  RC_TAG(copies > 0 ? "copies fail" : "no copies");
  SimulatedDevices dev;
  dev.cuda.fail_copies(to_device ? CopyDirection::HostToDevice : CopyDirection::DeviceToHost);
  {
    Module module(program);
    Result<std::vector<EValue>> out = module.execute(m.name, {});
    if (copies == 0) {
      RC_ASSERT(out.ok());
    } else {
      RC_ASSERT(out.code() == ErrorCode::Internal);
      RC_ASSERT(contains(out.error().message(), "(fail_copies)"));
    }
  }
  RC_ASSERT(dev.cuda.live_count() == 0u);
  RC_ASSERT(!dev.cuda.has_misuse());
}

}  // namespace
}  // namespace devplan::testing
