// LimitingDeviceAllocator: simulates a device's memory limits. An allocation fails with
// MemoryAllocationFailed when it would take the live bytes on its device above that device's
// capacity (set_capacity; unlimited by default), or when it alone is larger than
// max_allocation_bytes() (kDefaultMaxAllocationBytes by default, so that a corrupt size cannot
// exhaust the host). Live bytes are the requested sizes of the blocks allocated through this
// adaptor and not yet freed.
//
//   LimitingDeviceAllocator limited(&host);
//   DEVPLAN_RETURN_IF_ERROR(limited.set_capacity(0, 1 << 20));   // cuda:0 holds 1 MiB
//
// Threading and ownership: see DeviceAllocatorAdaptor.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include <mocks/device_allocator_adaptor.h>

namespace devplan {

class LimitingDeviceAllocator : public DeviceAllocatorAdaptor {
 public:
  static constexpr uint64_t kDefaultMaxAllocationBytes = uint64_t{1} << 32;

  explicit LimitingDeviceAllocator(DeviceAllocator* upstream,
                                   std::string name = "LimitingDeviceAllocator");

  Result<void*> allocate(size_t nbytes, DeviceIndex index,
                         size_t alignment = kDefaultAlignment) override;
  void deallocate_sized(void* ptr, size_t nbytes, DeviceIndex index) override;

  // Limits live bytes on `index` to `bytes`. InvalidArgument for a negative index.
  Error set_capacity(DeviceIndex index, uint64_t bytes);
  // Removes every capacity limit.
  void clear_capacities() { capacity_.fill(kUnlimited); }
  void set_max_allocation_bytes(uint64_t bytes) { max_allocation_bytes_ = bytes; }
  uint64_t max_allocation_bytes() const { return max_allocation_bytes_; }
  // Live bytes on `index`; 0 for a negative index.
  uint64_t live_bytes(DeviceIndex index) const { return index < 0 ? 0 : live_bytes_[index]; }

  // For a caller that does allocate() and deallocate_sized()'s work in one function
  // (TrackingShard's fused path): whether `nbytes` more on `index` (>= 0) break no limit, and the
  // live bytes a successful allocation and a free add and take.
  bool admits(size_t nbytes, DeviceIndex index) const {
    return !over_capacity(nbytes, index) && nbytes <= max_allocation_bytes_;
  }
  void count_allocation(DeviceIndex index, size_t nbytes) { live_bytes_[index] += nbytes; }
  void count_free(DeviceIndex index, size_t nbytes) { live_bytes_[index] -= nbytes; }

 private:
  static constexpr int kNumIndices = kMaxDeviceIndex + 1;
  static constexpr uint64_t kUnlimited = UINT64_MAX;

  bool over_capacity(size_t nbytes, DeviceIndex index) const {
    const uint64_t capacity = capacity_[index];
    return capacity != kUnlimited && (nbytes > capacity || live_bytes_[index] > capacity - nbytes);
  }
  // Why `nbytes` more on `index` break a limit: "out of memory on cuda:0: ...".
  std::string broken_limit(size_t nbytes, DeviceIndex index) const;

  std::array<uint64_t, kNumIndices> capacity_;
  std::array<uint64_t, kNumIndices> live_bytes_{};
  uint64_t max_allocation_bytes_ = kDefaultMaxAllocationBytes;
};

}  // namespace devplan
