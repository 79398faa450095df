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

#include <algorithm>
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

  // What allocate() and deallocate_sized() count, for a caller that does their work in one
  // function (TrackingShard's fused path): a successful allocation of `nbytes`, and a free of a
  // block of `nbytes`, on `index` (>= 0).
  void count_allocation(DeviceIndex index, size_t nbytes) {
    DeviceAllocationStats& s = stats_[index];
    s.current_bytes += nbytes;
    s.peak_bytes = std::max(s.peak_bytes, s.current_bytes);
    s.total_bytes += nbytes;
    s.current_allocations += 1;
    s.peak_allocations = std::max(s.peak_allocations, s.current_allocations);
    s.total_allocations += 1;
  }
  void count_free(DeviceIndex index, size_t nbytes) {
    DeviceAllocationStats& s = stats_[index];
    s.current_bytes -= nbytes;
    s.current_allocations -= 1;
    s.frees += 1;
  }
  // Sets every counter to zero.
  void clear() { stats_.fill(DeviceAllocationStats{}); }

 protected:
  Error copy(const DeviceCopy& copy) override;

 private:
  static constexpr int kNumIndices = kMaxDeviceIndex + 1;

  std::array<DeviceAllocationStats, kNumIndices> stats_{};
};

}  // namespace devplan
