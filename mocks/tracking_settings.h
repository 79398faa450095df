// TrackingSettings: everything TrackingDeviceAllocator's settings methods set (faults, capacities,
// the device set, the quarantine, fills, backing, the largest allocation, the fused path). The
// allocator keeps one copy and applies it to every shard, so that a shard made later gets the same
// settings as the shards made before it.
#pragma once

#include <array>
#include <bitset>
#include <cstddef>
#include <cstdint>
#include <set>

#include <mocks/block_store_device_allocator.h>
#include <mocks/copy_direction.h>
#include <mocks/limiting_device_allocator.h>
#include <runtime_ext/core/device.h>

namespace devplan {

class TrackingShard;

struct TrackingSettings {
  static constexpr int kNumIndices = kMaxDeviceIndex + 1;
  static constexpr uint64_t kUnlimited = UINT64_MAX;  // a capacity that limits nothing

  // The defaults: no faults, no capacities, every index available, host-backed blocks
  // (DeviceBacking::Device when `real_device`: the blocks come from an upstream).
  explicit TrackingSettings(bool real_device = false);

  // Replaces the configuration of every layer of `shard` with these settings.
  void apply_to(TrackingShard& shard) const;

  std::set<uint64_t> fail_at;  // sequence numbers of the calls that fail
  uint64_t fail_from = 0;      // 0: off
  std::bitset<kNumIndices> fail_on;
  CopyDirection fail_copies = CopyDirection::None;
  std::array<uint64_t, kNumIndices> capacity;  // kUnlimited: no limit
  uint64_t max_allocation_bytes = LimitingDeviceAllocator::kDefaultMaxAllocationBytes;
  std::bitset<kNumIndices> available;
  size_t quarantine_bytes = BlockStoreDeviceAllocator::kDefaultQuarantineBytes;
  size_t quarantine_blocks = BlockStoreDeviceAllocator::kDefaultQuarantineBlocks;
  bool fill_patterns = true;
  DeviceBacking backing = DeviceBacking::Host;
  bool fused_path = true;  // TrackingShard::set_fused_path
};

}  // namespace devplan
