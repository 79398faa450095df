// ValidatingDeviceAllocator: rejects, with InvalidArgument, the allocate() calls that a device
// would reject as invalid arguments, before any lower layer sees them: an alignment that is zero,
// not a power of two or above kMaxAlignment; a negative index; an index outside the simulated
// device set (every index 0..127 until restrict_devices() or set_device_count()).
//
//   ValidatingDeviceAllocator devices(&host);
//   DEVPLAN_RETURN_IF_ERROR(devices.set_device_count(2));   // only cuda:0 and cuda:1 exist
//
// Frees and copies pass through: the blocks exist whatever the device set is now.
// Threading and ownership: see DeviceAllocatorAdaptor.
#pragma once

#include <bitset>
#include <string>
#include <vector>

#include <mocks/device_allocator_adaptor.h>
#include <runtime_ext/core/alignment.h>

namespace devplan {

class ValidatingDeviceAllocator : public DeviceAllocatorAdaptor {
 public:
  // Larger alignments are InvalidArgument (a GPU allocator gives 256; this is generous).
  static constexpr size_t kMaxAlignment = size_t{1} << 24;
  static constexpr int kNumIndices = kMaxDeviceIndex + 1;

  explicit ValidatingDeviceAllocator(DeviceAllocator* upstream,
                                     std::string name = "ValidatingDeviceAllocator");

  Result<void*> allocate(size_t nbytes, DeviceIndex index,
                         size_t alignment = kDefaultAlignment) override;

  // Only these indices exist. InvalidArgument (and no change) when one is negative.
  Error restrict_devices(const std::vector<DeviceIndex>& indices);
  // Only indices 0..count-1 exist. InvalidArgument (and no change) unless 0 <= count <= 128.
  Error set_device_count(int count);
  // Every index 0..127 exists again (the default).
  void allow_all_devices() { available_.set(); }
  bool is_device_available(DeviceIndex index) const { return index >= 0 && available_[index]; }
  // Whether allocate() passes a call with `alignment` on `index` on to the upstream (for a caller
  // that does its work in one function: TrackingShard's fused path).
  bool accepts(size_t alignment, DeviceIndex index) const {
    return is_power_of_two(alignment) && alignment <= kMaxAlignment && is_device_available(index);
  }

 private:
  // "cuda:0, cuda:1", or "none".
  std::string available_list() const;

  std::bitset<kNumIndices> available_;
};

}  // namespace devplan
