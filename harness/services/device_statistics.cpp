#include <harness/services/device_statistics.h>

#include <algorithm>
#include <map>

namespace devplan::harness {

std::vector<DeviceStatistics> device_statistics(const std::vector<AllocationEvent>& events) {
  std::map<Device, DeviceStatistics> by_device;
  // Live allocations by pointer: a free counts only when it returns one of them.
  std::map<const void*, std::pair<Device, size_t>> live;
  for (const AllocationEvent& e : events) {
    if (e.kind == AllocationEvent::Kind::FailedAllocate) continue;
    if (e.kind == AllocationEvent::Kind::Free) {
      auto it = live.find(e.ptr);
      if (it == live.end()) continue;  // unknown pointer or double free: changes nothing
      DeviceStatistics& d = by_device[it->second.first];
      d.bytes.current -= it->second.second;
      --d.allocations.current;
      live.erase(it);
      continue;
    }
    DeviceStatistics& d = by_device[e.device];
    d.device = e.device;
    d.bytes.current += e.size;
    d.bytes.total += e.size;
    d.bytes.peak = std::max(d.bytes.peak, d.bytes.current);
    ++d.allocations.current;
    ++d.allocations.total;
    d.allocations.peak = std::max(d.allocations.peak, d.allocations.current);
    live[e.ptr] = {e.device, e.size};
  }
  std::vector<DeviceStatistics> out;
  for (auto& [device, d] : by_device) out.push_back(d);
  return out;
}

}  // namespace devplan::harness
