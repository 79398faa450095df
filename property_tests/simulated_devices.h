// SimulatedDevices: what one property case runs a Module against. A fresh
// TrackingDeviceAllocator serves CUDA (every index, no limits; sequence numbers from 1), a
// second one is installed for the CPU device type so that a CPU buffer routed through the
// allocator registry would be seen, and the simulated add backend answers the scenarios'
// delegate calls. Everything is restored when the object is destroyed.
//
//   SimulatedDevices dev;
//   Module module(build_program(scenario));
//   RC_ASSERT(module.load_method("forward").ok());
//   RC_ASSERT(dev.cuda.live_count() == scenario.methods[0].num_device_allocations());
#pragma once

#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <harness/scenario/model.h>
#include <mocks/simulated_device_backend.h>
#include <mocks/tracking_device_allocator.h>
#include <runtime_ext/core/device_allocator_registry.h>

namespace devplan::testing {

class SimulatedDevices {
 public:
  TrackingDeviceAllocator cuda{DeviceType::CUDA};
  TrackingDeviceAllocator cpu{DeviceType::CPU};  // must never be called
  SimulatedDeviceBackend add{SimulatedDeviceBackend::Op::Add};

 private:
  ScopedDeviceAllocator scoped_cuda_{&cuda};
  ScopedDeviceAllocator scoped_cpu_{&cpu};
  ScopedBackend scoped_add_{kScenarioDelegateBackend, &add};
};

// One device allocation as the ledger shows it: (owner, device, size).
using AllocationKey = std::tuple<std::string, std::string, size_t>;

// The allocations load_method makes for `method`: one per non-CPU buffer of non-zero size,
// owned by "<method>/buffer <i>".
inline std::multiset<AllocationKey> expected_allocations(const MethodScenario& method) {
  std::multiset<AllocationKey> out;
  for (size_t b = 0; b < method.buffers.size(); ++b) {
    const ScenarioBuffer& buffer = method.buffers[b];
    if (buffer.device.is_cpu() || buffer.size == 0) continue;
    out.emplace(method.name + "/buffer " + std::to_string(b), buffer.device.to_string(),
                buffer.size);
  }
  return out;
}

// The live allocations of `allocator` as keys.
inline std::multiset<AllocationKey> live_allocations(const TrackingDeviceAllocator& allocator) {
  std::multiset<AllocationKey> out;
  for (const AllocationRecord& r : allocator.live_allocations()) {
    out.emplace(r.owner, r.device.to_string(), r.size);
  }
  return out;
}

inline std::string describe_allocations(const std::multiset<AllocationKey>& keys) {
  std::string s = "{";
  for (const AllocationKey& k : keys) {
    s += (s.size() > 1 ? ", " : "") + std::get<0>(k) + " " + std::get<1>(k) + " " +
         std::to_string(std::get<2>(k)) + " B";
  }
  return s + "}";
}

}  // namespace devplan::testing
