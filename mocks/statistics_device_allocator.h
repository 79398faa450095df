// StatisticsDeviceAllocator: counts, per device index, what passes through it to the upstream:
// current, peak and total bytes and allocations, frees, failed allocations and performed copies.
//
//   StatisticsDeviceAllocator counted(&host);
//   ...
//   uint64_t peak = counted.stats(0).peak_bytes;
//
// Bytes are requested sizes (no alignment padding). A free counts on the block's own device (a
// free that names the wrong index still frees the block); only frees of live blocks count (see
// DeviceAllocatorAdaptor: a free the upstream knows no live block for passes through uncounted).
// Threading and ownership: see DeviceAllocatorAdaptor.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include <mocks/device_allocator_adaptor.h>

namespace devplan {

// Counters for one device index.
struct DeviceAllocationStats {
  uint64_t current_bytes = 0;
  uint64_t peak_bytes = 0;
  uint64_t total_bytes = 0;  // sum over all successful allocations
  uint64_t current_allocations = 0;
  uint64_t peak_allocations = 0;
  uint64_t total_allocations = 0;  // successful allocations
  uint64_t frees = 0;              // successful frees (a wrong-device free counts here)
  uint64_t failed_allocations = 0;
  uint64_t host_to_device_copies = 0;  // performed copies with at least one byte
  uint64_t host_to_device_bytes = 0;
  uint64_t device_to_host_copies = 0;
  uint64_t device_to_host_bytes = 0;
};

class StatisticsDeviceAllocator : public DeviceAllocatorAdaptor {
 public:
  explicit StatisticsDeviceAllocator(DeviceAllocator* upstream,
                                     std::string name = "StatisticsDeviceAllocator");

  Result<void*> allocate(size_t nbytes, DeviceIndex index,
                         size_t alignment = kDefaultAlignment) override;
  void deallocate_sized(void* ptr, size_t nbytes, DeviceIndex index) override;

  // Counters for `index`; all zero for an index never used (or negative).
  DeviceAllocationStats stats(DeviceIndex index) const;
  // Sets every counter to zero.
  void clear() { stats_.fill(DeviceAllocationStats{}); }

 protected:
  Error copy(const DeviceCopy& copy) override;

 private:
  static constexpr int kNumIndices = kMaxDeviceIndex + 1;

  std::array<DeviceAllocationStats, kNumIndices> stats_{};
};

}  // namespace devplan
