// RecordingDeviceAllocator: forwards every call to an upstream DeviceAllocator and records, in
// order, each allocation (successful or not) and each free, so the harness can draw live device
// bytes over the allocation sequence.
//
//   TrackingDeviceAllocator tracking;
//   RecordingDeviceAllocator recording(&tracking);
//   ScopedDeviceAllocator scoped(&recording);
//   ...
//   for (const AllocationEvent& e : recording.events()) ...
//
// Threading: safe from many threads (events are appended under a mutex, in the order the calls
// returned; a free holds the mutex while upstream frees, so an address handed out again is
// recorded after its free). The upstream allocator must outlive this one.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <mocks/forwarding_device_allocator.h>
#include <mocks/tracking_device_allocator.h>
#include <runtime_ext/core/device_allocator.h>

namespace devplan {

struct AllocationEvent {
  enum class Kind : uint8_t { Allocate, FailedAllocate, Free };
  Kind kind = Kind::Allocate;
  Device device;              // for a free: the device of the allocation (else the one named)
  size_t size = 0;            // bytes allocated or freed (0 for a free of an unknown pointer)
  const void* ptr = nullptr;  // the device pointer (an address; never dereferenced)
  size_t alignment = 0;       // allocations only
  std::string owner;          // current_allocation_owner() at allocation time
};

// The allocation ledger implied by `events`, in the TrackingDeviceAllocator's terms: one record
// per successful allocation (seq counts every allocation attempt, 1-based), live when no later
// free returned its pointer. Frees of pointers that were never allocated (or already freed) are
// returned in `unknown_frees` when it is given.
std::vector<AllocationRecord> ledger_from_events(
    const std::vector<AllocationEvent>& events,
    std::vector<AllocationEvent>* unknown_frees = nullptr);

class RecordingDeviceAllocator : public ForwardingDeviceAllocator {
 public:
  explicit RecordingDeviceAllocator(DeviceAllocator* upstream)
      : ForwardingDeviceAllocator(upstream) {}

  // Copies and device_type() are forwarded unrecorded.
  Result<void*> allocate(size_t nbytes, DeviceIndex index, size_t alignment) override;
  void deallocate(void* ptr, DeviceIndex index) override;

  std::vector<AllocationEvent> events() const;

 private:
  mutable std::mutex mutex_;
  std::vector<AllocationEvent> events_;
  std::unordered_map<const void*, std::pair<size_t, Device>> live_;
};

}  // namespace devplan
