#include <mocks/tracking_settings.h>

#include <vector>

#include <mocks/tracking_shard.h>

namespace devplan {

TrackingSettings::TrackingSettings(bool real_device) {
  capacity.fill(kUnlimited);
  available.set();
  if (real_device) backing = DeviceBacking::Device;
}

void TrackingSettings::apply_to(TrackingShard& shard) const {
  FailureInjectingDeviceAllocator& faults = shard.faults();
  faults.clear_faults();
  shard.limits().clear_capacities();
  for (uint64_t seq : fail_at) faults.fail_allocation_at(seq);
  faults.fail_allocations_from(fail_from);
  std::vector<DeviceIndex> indices;
  for (int i = 0; i < kNumIndices; ++i) {
    const DeviceIndex index = static_cast<DeviceIndex>(i);
    if (fail_on[i]) (void)faults.fail_allocations_on(index);
    if (available[i]) indices.push_back(index);
    if (capacity[i] != kUnlimited) (void)shard.limits().set_capacity(index, capacity[i]);
  }
  faults.fail_copies(fail_copies);
  (void)shard.devices().restrict_devices(indices);
  shard.limits().set_max_allocation_bytes(max_allocation_bytes);
  shard.store().set_quarantine_limits(quarantine_bytes, quarantine_blocks);
  shard.store().set_fill_patterns(fill_patterns);
  shard.store().set_backing(backing);
  shard.set_fused_path(fused_path);
}

}  // namespace devplan
