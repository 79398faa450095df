// Allocation statistics per device, counted the way RMM's statistics_resource_adaptor counts:
// bytes and allocations, each as current (live now), peak (most live at once) and total (ever
// allocated). Computed from the allocation events, so they mean the same under every engine.
//
//   for (const DeviceStatistics& d : device_statistics(result.events))
//     d.device.to_string(), d.bytes.peak, d.allocations.total ...
#pragma once

#include <cstdint>
#include <vector>

#include <mocks/recording_device_allocator.h>
#include <runtime_ext/core/device.h>

namespace devplan::harness {

struct StatisticsCounter {
  uint64_t current = 0;
  uint64_t peak = 0;
  uint64_t total = 0;
};

struct DeviceStatistics {
  Device device;
  StatisticsCounter bytes;
  StatisticsCounter allocations;
};

// One entry per device that saw a successful allocation, ordered by device type then index.
// Frees are matched to allocations by pointer; failed allocations count nowhere, and a free of
// a pointer that is not live (unknown, or freed already) changes nothing.
std::vector<DeviceStatistics> device_statistics(const std::vector<AllocationEvent>& events);

}  // namespace devplan::harness
