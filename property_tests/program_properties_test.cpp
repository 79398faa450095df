// Properties of the load path over random programs: round trip, placement, cleanup, faults,
// corruptions and execution. Each case builds a fresh program and fresh simulated devices.
#include <algorithm>
#include <map>
#include <numeric>

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <harness/scenario/corruption.h>
#include <harness/scenario/writer.h>
#include <runtime_ext/analysis/method_plan_compare.h>
#include <runtime_ext/module/module.h>
#include <runtime_ext/program/program.h>

#include <harness/scenario/rapidcheck_generators.h>
#include "execution_check.h"
#include "property.h"
#include "simulated_devices.h"

namespace devplan::testing {
namespace {

Result<Program> load_program(const std::vector<uint8_t>& bytes) {
  return Program::load_from_bytes(Span<const uint8_t>(bytes.data(), bytes.size()));
}

uintptr_t address(const void* p) { return reinterpret_cast<uintptr_t>(p); }

// Methods of `s` that make at least one device allocation.
std::vector<size_t> methods_with_device_allocations(const ProgramScenario& s) {
  std::vector<size_t> out;
  for (size_t i = 0; i < s.methods.size(); ++i) {
    if (s.methods[i].num_device_allocations() > 0) out.push_back(i);
  }
  return out;
}

// ---- Round trip -----------------------------------------------------------------------------

// A generated program written and read back gives the same sizes and devices in MethodMeta for
// every buffer, and the same tensors, values and instructions as the builder meant.
DEVPLAN_PROP(RoundTrip, MethodMetaGivesEveryBufferSizeAndDevice, ()) {
  const ProgramScenario s = *gen_program_scenario();
  const ProgramBuilder builder = make_scenario_program_builder(s);
  const std::vector<uint8_t> bytes = builder.build();
  Result<Program> program = load_program(bytes);
  RC_ASSERT(program.ok());
  RC_ASSERT(program->num_methods() == s.methods.size());
  for (size_t i = 0; i < s.methods.size(); ++i) {
    const MethodScenario& m = s.methods[i];
    RC_ASSERT(std::string(program->method_name(i).value()) == m.name);
    Result<MethodMeta> meta = program->method_meta(m.name);
    RC_ASSERT(meta.ok());
    RC_ASSERT(meta->num_memory_planned_buffers() == m.buffers.size());
    bool has_device = false;
    for (size_t b = 0; b < m.buffers.size(); ++b) {
      RC_ASSERT(meta->memory_planned_buffer_size(b).value() ==
                static_cast<int64_t>(m.buffers[b].size));
      RC_ASSERT(meta->memory_planned_buffer_device(b).value() == m.buffers[b].device);
      has_device = has_device || !m.buffers[b].device.is_cpu();
    }
    RC_ASSERT(meta->memory_planned_buffer_size(m.buffers.size()).code() ==
              ErrorCode::InvalidArgument);
    RC_ASSERT(meta->has_device_buffers() == has_device);
    for (size_t t = 0; t < m.tensors.size(); ++t) {
      const TensorInfo& info = meta->plan().values[t].tensor;
      RC_ASSERT(info.buffer_index == m.tensors[t].buffer);
      RC_ASSERT(info.offset == m.tensors[t].offset);
      RC_ASSERT(info.device == m.tensor_device(t));
      RC_ASSERT(info.nbytes == scenario_tensor_nbytes(m.tensors[t]));
    }
    const std::string diff = method_plan_difference(builder.method(i).plan(), meta->plan());
    RC_ASSERT(diff == "");
  }
}

// ---- Placement ------------------------------------------------------------------------------

// load_method makes exactly one device allocation per non-CPU, non-empty buffer, on that
// buffer's device, of its planned size, aligned to 16; CPU buffers never reach an allocator;
// every planned tensor sits at its buffer's base plus its offset.
DEVPLAN_PROP(Placement, OneDeviceAllocationPerDeviceBufferAndTensorsInsideTheirBuffers, ()) {
  const ProgramScenario s = *gen_program_scenario();
  SimulatedDevices dev;
  Module module(build_program(s));
  size_t expected_live = 0;
  for (const MethodScenario& m : s.methods) {
    const size_t before = dev.cuda.ledger().size();
    const Error err = module.load_method(m.name);
    RC_ASSERT(err.ok());
    const std::vector<AllocationRecord> ledger = dev.cuda.ledger();
    std::map<std::string, AllocationRecord> made;  // by owner
    for (size_t k = before; k < ledger.size(); ++k) {
      RC_ASSERT(made.emplace(ledger[k].owner, ledger[k]).second);  // one allocation per owner
    }
    RC_ASSERT(made.size() == m.num_device_allocations());
    Result<const PlannedMemory*> planned = module.planned_memory(m.name);
    RC_ASSERT(planned.ok());
    RC_ASSERT(*planned != nullptr);
    RC_ASSERT((*planned)->num_buffers() == m.buffers.size());
    RC_ASSERT((*planned)->num_device_allocations() == m.num_device_allocations());
    for (size_t b = 0; b < m.buffers.size(); ++b) {
      const ScenarioBuffer& buffer = m.buffers[b];
      const Span<uint8_t> span = (*planned)->buffer(b);
      RC_ASSERT((*planned)->device(b) == buffer.device);
      RC_ASSERT(span.size() == buffer.size);
      const auto it = made.find(m.name + "/buffer " + std::to_string(b));
      if (buffer.device.is_cpu() || buffer.size == 0) {
        RC_ASSERT(it == made.end());
        continue;
      }
      RC_ASSERT(it != made.end());
      const AllocationRecord& r = it->second;
      RC_ASSERT(r.device == buffer.device);
      RC_ASSERT(r.size == buffer.size);
      RC_ASSERT(r.alignment == kDefaultAlignment);
      RC_ASSERT(r.live);
      RC_ASSERT(address(r.ptr) == address(span.data()));
      RC_ASSERT(is_aligned(span.data(), kDefaultAlignment));
    }
    Result<Method*> method = module.method(m.name);
    RC_ASSERT(method.ok());
    for (size_t t = 0; t < m.tensors.size(); ++t) {
      const ScenarioTensor& x = m.tensors[t];
      const Tensor& tensor = (*method)->value(m.tensor_value_index(t)).tensor;
      const Span<uint8_t> span = (*planned)->buffer(x.buffer);
      const uint8_t* expected = span.size() == 0 ? nullptr : span.data() + x.offset;
      RC_ASSERT(address(tensor.data) == address(expected));
      RC_ASSERT(tensor.device == m.tensor_device(t));
      RC_ASSERT(tensor.nbytes == scenario_tensor_nbytes(x));
      if (tensor.nbytes > 0) {
        const uint8_t* p = static_cast<const uint8_t*>(tensor.data);
        RC_ASSERT(p >= span.data());
        RC_ASSERT(p + tensor.nbytes <= span.data() + span.size());
      }
    }
    expected_live += m.num_device_allocations();
    RC_ASSERT(dev.cuda.live_count() == expected_live);
  }
  RC_ASSERT(dev.cpu.allocate_calls() == 0u);
  RC_ASSERT(!dev.cuda.has_misuse());
}

// ---- Cleanup --------------------------------------------------------------------------------

// After unload_method, and after the Module is destroyed, nothing is live and nothing was
// misused, whatever order methods were loaded and unloaded in.
DEVPLAN_PROP(Cleanup, NothingLiveAfterUnloadOrDestruction, ()) {
  const ProgramScenario s = *gen_program_scenario();
  const size_t n = s.methods.size();
  // (method, load?) steps, then an unload order, then the methods loaded before destruction.
  const auto steps = *rc::gen::container<std::vector<std::pair<size_t, bool>>>(
      rc::gen::pair(rc::gen::inRange<size_t>(0, n), rc::gen::arbitrary<bool>()));
  std::vector<size_t> unload_order(n);
  std::iota(unload_order.begin(), unload_order.end(), 0);
  const auto keys = *rc::gen::container<std::vector<uint32_t>>(n, rc::gen::arbitrary<uint32_t>());
  std::stable_sort(unload_order.begin(), unload_order.end(),
                   [&](size_t a, size_t b) { return keys[a] < keys[b]; });
  const auto reload = *rc::gen::container<std::vector<size_t>>(rc::gen::inRange<size_t>(0, n));
  SimulatedDevices dev;
  {
    Module module(build_program(s));
    std::vector<bool> loaded(n, false);
    for (const auto& [i, load] : steps) {
      const MethodScenario& m = s.methods[i];
      if (load) {
        RC_ASSERT(module.load_method(m.name).ok());
        loaded[i] = true;
      } else {
        const Error err = module.unload_method(m.name);
        RC_ASSERT(err.code() == (loaded[i] ? ErrorCode::Ok : ErrorCode::NotFound));
        loaded[i] = false;
      }
      std::multiset<AllocationKey> expected;
      for (size_t k = 0; k < n; ++k) {
        if (loaded[k]) {
          for (const AllocationKey& key : expected_allocations(s.methods[k])) expected.insert(key);
        }
      }
      RC_ASSERT(live_allocations(dev.cuda) == expected);
    }
    for (size_t i : unload_order) {
      if (loaded[i]) RC_ASSERT(module.unload_method(s.methods[i].name).ok());
      RC_ASSERT(!module.is_method_loaded(s.methods[i].name));
    }
    RC_ASSERT(dev.cuda.live_count() == 0u);
    RC_ASSERT(!dev.cuda.has_misuse());
    for (size_t i : reload) RC_ASSERT(module.load_method(s.methods[i].name).ok());
  }
  RC_ASSERT(dev.cuda.live_count() == 0u);
  RC_ASSERT(!dev.cuda.has_misuse());
  for (const AllocationRecord& r : dev.cuda.ledger()) RC_ASSERT(!r.live);
  uint64_t frees = 0, allocations = 0;
  for (int d = 0; d < 4; ++d) {
    frees += dev.cuda.stats(static_cast<DeviceIndex>(d)).frees;
    allocations += dev.cuda.stats(static_cast<DeviceIndex>(d)).total_allocations;
  }
  RC_ASSERT(frees == allocations);
  RC_ASSERT(dev.cpu.allocate_calls() == 0u);
}

// ---- Faults ---------------------------------------------------------------------------------

// Failing the k-th device allocation of a load makes load_method fail, frees what that load
// had allocated, and leaves other loaded methods alone; the same load without the fault works.
DEVPLAN_PROP(Faults, FailingTheKthAllocationLeavesNothingLive, ()) {
  const ProgramScenario s = *gen_program_scenario();
  const std::vector<size_t> candidates = methods_with_device_allocations(s);
  RC_PRE(!candidates.empty());
  const size_t mi = *rc::gen::elementOf(candidates);
  const MethodScenario& m = s.methods[mi];
  const size_t k = *rc::gen::inRange<size_t>(1, m.num_device_allocations() + 1);
  const auto preload =
      *rc::gen::container<std::vector<bool>>(s.methods.size(), rc::gen::arbitrary<bool>());

  SimulatedDevices dev;
  Module module(build_program(s));
  std::multiset<AllocationKey> before;
  for (size_t i = 0; i < s.methods.size(); ++i) {
    if (i == mi || !preload[i]) continue;
    RC_ASSERT(module.load_method(s.methods[i].name).ok());
    for (const AllocationKey& key : expected_allocations(s.methods[i])) before.insert(key);
  }
  RC_ASSERT(live_allocations(dev.cuda) == before);
  const uint64_t seq = dev.cuda.allocate_calls() + k;
  dev.cuda.fail_allocation_at(seq);

  const Error err = module.load_method(m.name);
  RC_ASSERT(err.code() == ErrorCode::MemoryAllocationFailed);
  // The k-th device buffer is the one named.
  size_t seen = 0, failing = 0;
  for (size_t b = 0; b < m.buffers.size(); ++b) {
    if (!m.buffers[b].device.is_cpu() && m.buffers[b].size > 0 && ++seen == k) failing = b;
  }
  const ScenarioBuffer& fb = m.buffers[failing];
  const std::string where = "method '" + m.name + "': buffer " + std::to_string(failing) + " (" +
                            std::to_string(fb.size) + " bytes on " + fb.device.to_string() + ")";
  RC_ASSERT(err.message().find(where) != std::string::npos);
  RC_ASSERT(!module.is_method_loaded(m.name));
  RC_ASSERT(live_allocations(dev.cuda) == before);
  RC_ASSERT(dev.cuda.failed_allocations().size() == 1u);
  RC_ASSERT(dev.cuda.failed_allocations()[0].seq == seq);
  RC_ASSERT(!dev.cuda.has_misuse());

  dev.cuda.clear_faults();
  RC_ASSERT(module.load_method(m.name).ok());
  std::multiset<AllocationKey> after = before;
  for (const AllocationKey& key : expected_allocations(m)) after.insert(key);
  RC_ASSERT(live_allocations(dev.cuda) == after);
  RC_ASSERT(!dev.cuda.has_misuse());
}

// A device whose capacity is below what a method needs on it makes load_method fail with
// nothing left live; without the limit the load works.
DEVPLAN_PROP(Faults, ExceededCapacityLeavesNothingLive, ()) {
  const ProgramScenario s = *gen_program_scenario();
  const std::vector<size_t> candidates = methods_with_device_allocations(s);
  RC_PRE(!candidates.empty());
  const MethodScenario& m = s.methods[*rc::gen::elementOf(candidates)];
  std::map<Device, uint64_t> needed;
  for (const ScenarioBuffer& b : m.buffers) {
    if (!b.device.is_cpu()) needed[b.device] += b.size;
  }
  std::vector<Device> devices;
  for (const auto& [d, bytes] : needed) {
    if (bytes > 0) devices.push_back(d);
  }
  const Device d = *rc::gen::elementOf(devices);
  const uint64_t capacity = *rc::gen::inRange<uint64_t>(0, needed[d]);

  SimulatedDevices dev;
  RC_ASSERT(dev.cuda.set_capacity(d.index, capacity).ok());
  Module module(build_program(s));
  const Error err = module.load_method(m.name);
  RC_ASSERT(err.code() == ErrorCode::MemoryAllocationFailed);
  RC_ASSERT(err.message().find("method '" + m.name + "': buffer ") != std::string::npos);
  RC_ASSERT(!module.is_method_loaded(m.name));
  RC_ASSERT(dev.cuda.live_count() == 0u);
  RC_ASSERT(dev.cuda.failed_allocations().size() == 1u);
  RC_ASSERT(dev.cuda.failed_allocations()[0].device == d);
  RC_ASSERT(!dev.cuda.has_misuse());

  dev.cuda.clear_capacities();
  RC_ASSERT(module.load_method(m.name).ok());
  RC_ASSERT(live_allocations(dev.cuda) == expected_allocations(m));
}

// ---- Corruptions ----------------------------------------------------------------------------

// Every refused corruption of a valid program is rejected with InvalidProgram naming the method,
// by Program::load/method_meta and by Module::load_method, before any device allocation; the
// other methods are unaffected.
DEVPLAN_PROP(Corruptions, RejectedWithInvalidProgram, ()) {
  const ProgramScenario s = *gen_program_scenario();
  const Corruption c = *gen_corruption(s, /*refused=*/true);
  RC_TAG(corruption_kind_name(c.kind));
  Result<std::vector<uint8_t>> bytes = build_corrupted_program(s, c);
  RC_ASSERT(bytes.ok());
  const MethodScenario& bad = s.methods[c.method % s.methods.size()];
  Result<Program> program = load_program(*bytes);
  RC_ASSERT(program.ok());
  Result<MethodMeta> meta = program->method_meta(bad.name);
  RC_ASSERT(!meta.ok());
  RC_ASSERT(meta.code() == ErrorCode::InvalidProgram);
  RC_ASSERT(meta.error().message().rfind("method '" + bad.name + "': ", 0) == 0u);
  for (const MethodScenario& m : s.methods) {
    if (&m != &bad) RC_ASSERT(program->method_status(m.name).ok());
  }
  SimulatedDevices dev;
  Module module(std::move(bytes).value());
  RC_ASSERT(module.load_method(bad.name).code() == ErrorCode::InvalidProgram);
  RC_ASSERT(!module.is_method_loaded(bad.name));
  RC_ASSERT(dev.cuda.allocate_calls() == 0u);
}

// The device each buffer of the corrupted method has when ExecuTorch reads it: the first entry
// naming the buffer wins, entries naming no buffer are never matched (stated per kind, from
// what build_corrupted_program writes).
std::vector<Device> executorch_buffer_devices(const MethodScenario& m, const Corruption& c) {
  std::vector<Device> devices;
  for (const ScenarioBuffer& b : m.buffers) devices.push_back(b.device);
  if (m.buffers.empty()) return devices;
  const size_t b = c.target % m.buffers.size();
  const int64_t amount = c.amount;
  switch (c.kind) {
    case CorruptionKind::DuplicateDeviceEntry:
      if (devices[b].is_cpu()) devices[b] = Device::cuda(0);
      break;
    case CorruptionKind::UnknownDeviceType:
      devices[b] = Device(static_cast<DeviceType>(std::min<int64_t>(2 + amount, 127)), 0);
      break;
    case CorruptionKind::NegativeDeviceIndex:
      devices[b] =
          Device(DeviceType::CUDA, static_cast<DeviceIndex>(std::max<int64_t>(-1 - amount, -128)));
      break;
    default:
      break;
  }
  return devices;
}

// Every other corruption is a defect ExecuTorch reads without a check: the program loads, the
// method's buffers have the devices ExecuTorch's linear scan gives, a note says what was odd, and
// Module::load_method does what ExecuTorch's Module does with those devices (an unknown type has
// no allocator: NotFound; the tracking allocator refuses a negative index: InvalidArgument),
// leaving nothing allocated.
DEVPLAN_PROP(Corruptions, LenientFieldsAreReadAsExecutorchReadsThem, ()) {
  const ProgramScenario s = *gen_program_scenario();
  const Corruption c = *gen_corruption(s, /*refused=*/false);
  RC_TAG(corruption_kind_name(c.kind));
  Result<std::vector<uint8_t>> bytes = build_corrupted_program(s, c);
  RC_ASSERT(bytes.ok());
  const MethodScenario& odd = s.methods[c.method % s.methods.size()];
  Result<Program> program = load_program(*bytes);
  RC_ASSERT(program.ok());
  for (const MethodScenario& m : s.methods) RC_ASSERT(program->method_status(m.name).ok());
  Result<MethodMeta> meta = program->method_meta(odd.name);
  RC_ASSERT(meta.ok());
  const std::vector<Device> expected = executorch_buffer_devices(odd, c);
  RC_ASSERT(meta->num_memory_planned_buffers() == expected.size());
  for (size_t b = 0; b < expected.size(); ++b) {
    RC_ASSERT(meta->memory_planned_buffer_device(b).value() == expected[b]);
  }
  RC_ASSERT(!program->method_plan(odd.name).value()->notes.empty());

  SimulatedDevices dev;
  Module module(std::move(bytes).value());
  const Error loaded = module.load_method(odd.name);
  // An empty buffer asks the allocator for nothing (divergence "zero-size-device-buffer").
  const bool allocates =
      !odd.buffers.empty() && odd.buffers[c.target % odd.buffers.size()].size > 0;
  const ErrorCode want = c.kind == CorruptionKind::UnknownDeviceType ? ErrorCode::NotFound
                         : c.kind == CorruptionKind::NegativeDeviceIndex && allocates
                             ? ErrorCode::InvalidArgument
                             : ErrorCode::Ok;
  RC_ASSERT(loaded.code() == want);
  if (loaded.ok()) RC_ASSERT(module.unload_method(odd.name).ok());
  RC_ASSERT(dev.cuda.live_allocations().empty());
}

// ---- Execution ------------------------------------------------------------------------------

// Every generated method executes on the simulated devices, and afterwards every planned
// buffer (host and device) holds exactly what the host model computes (NaN results as values).
DEVPLAN_PROP(Execution, BuffersMatchTheHostModel, ()) {
  const ProgramScenario s = *gen_program_scenario();
  const uint32_t salt = *rc::gen::inRange<uint32_t>(0, 1000);
  check_execution_matches_model(s, salt);
}

}  // namespace
}  // namespace devplan::testing
