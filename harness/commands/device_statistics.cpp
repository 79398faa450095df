#include <harness/commands/device_statistics.h>

#include <algorithm>
#include <map>

namespace devplan::harness {

std::vector<DeviceStatistics> device_statistics(const std::vector<AllocationEvent>& events) {
  std::map<Device, DeviceStatistics> by_device;
  for (const AllocationEvent& e : events) {
    if (e.kind == AllocationEvent::Kind::FailedAllocate) continue;
    const Device key = e.device;
    if (e.kind == AllocationEvent::Kind::Free) {
      auto it = by_device.find(key);
      if (it == by_device.end() || e.size == 0) continue;  // unknown pointer
      StatisticsCounter& bytes = it->second.bytes;
      StatisticsCounter& allocations = it->second.allocations;
      bytes.current -= std::min<uint64_t>(bytes.current, e.size);
      allocations.current -= allocations.current > 0 ? 1 : 0;
      continue;
    }
    DeviceStatistics& d = by_device[key];
    d.device = e.device;
    d.bytes.current += e.size;
    d.bytes.total += e.size;
    d.bytes.peak = std::max(d.bytes.peak, d.bytes.current);
    ++d.allocations.current;
    ++d.allocations.total;
    d.allocations.peak = std::max(d.allocations.peak, d.allocations.current);
  }
  std::vector<DeviceStatistics> out;
  for (auto& [key, d] : by_device) out.push_back(d);
  return out;
}

}  // namespace devplan::harness
