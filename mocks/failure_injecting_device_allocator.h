// FailureInjectingDeviceAllocator: makes chosen calls fail before they reach the upstream.
// allocate() calls fail with MemoryAllocationFailed by sequence number (fail_allocation_at,
// fail_allocations_from) or by device (fail_allocations_on); copies fail with Internal by
// direction (fail_copies).
//
//   FailureInjectingDeviceAllocator faults(&host);
//   faults.fail_allocation_at(3);              // the 3rd allocate() call fails
//
// Sequence numbers: alone, it numbers the allocate() calls it sees (1, 2, ...). Given a shared
// AllocationSequence it reads the number an outer layer took for the call instead, so that calls
// rejected above it still count (TrackingDeviceAllocator's ledger numbers every call).
// Threading and ownership: see DeviceAllocatorAdaptor; a shared sequence must outlive it.
#pragma once

#include <bitset>
#include <cstdint>
#include <set>
#include <string>

#include <mocks/allocation_sequence.h>
#include <mocks/device_allocator_adaptor.h>

namespace devplan {

class FailureInjectingDeviceAllocator : public DeviceAllocatorAdaptor {
 public:
  explicit FailureInjectingDeviceAllocator(DeviceAllocator* upstream,
                                           const AllocationSequence* shared_sequence = nullptr,
                                           std::string name = "FailureInjectingDeviceAllocator");

  Result<void*> allocate(size_t nbytes, DeviceIndex index,
                         size_t alignment = kDefaultAlignment) override;

  // Makes the allocate() call numbered `seq` fail. May be called for several; 0 is ignored.
  void fail_allocation_at(uint64_t seq);
  // Makes every allocate() call numbered `seq` or later fail; 0 turns this off.
  void fail_allocations_from(uint64_t seq) { fail_from_ = seq; }
  // Makes every allocation on `index` fail. InvalidArgument for a negative index.
  Error fail_allocations_on(DeviceIndex index);
  // Makes copies in `directions` fail; CopyDirection::None turns this off.
  void fail_copies(CopyDirection directions) { fail_copies_ = directions; }
  // Removes every fault set by the four functions above.
  void clear_faults();
  // Whether any allocation fault is set (the common case is none: then nothing is looked up).
  bool has_allocation_faults() const {
    return !fail_at_.empty() || fail_from_ != 0 || fail_devices_.any();
  }

 protected:
  Error copy(const DeviceCopy& copy) override;

 private:
  static constexpr int kNumIndices = kMaxDeviceIndex + 1;

  // The call's number: the shared sequence's current one, or the next of its own.
  uint64_t call_number();
  // Which fault makes call `seq` fail: "fail_allocation_at 2"; "" for none.
  std::string fault_for(uint64_t seq, const Device& device) const;

  const AllocationSequence* const shared_sequence_;
  AllocationSequence own_sequence_;
  std::set<uint64_t> fail_at_;
  uint64_t fail_from_ = 0;
  std::bitset<kNumIndices> fail_devices_;
  CopyDirection fail_copies_ = CopyDirection::None;
};

}  // namespace devplan
