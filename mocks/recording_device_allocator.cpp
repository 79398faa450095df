#include <mocks/recording_device_allocator.h>

#include <runtime_ext/core/allocation_owner.h>

namespace devplan {

Result<void*> RecordingDeviceAllocator::allocate(size_t nbytes, DeviceIndex index,
                                                 size_t alignment) {
  Result<void*> result = upstream().allocate(nbytes, index, alignment);
  std::lock_guard<std::mutex> lock(mutex_);
  AllocationEvent e;
  e.device = Device(device_type(), index);
  e.size = nbytes;
  e.alignment = alignment;
  e.owner = current_allocation_owner();
  if (result.ok()) {
    e.kind = AllocationEvent::Kind::Allocate;
    e.ptr = *result;
    live_[*result] = {nbytes, e.device};
  } else {
    e.kind = AllocationEvent::Kind::FailedAllocate;
  }
  events_.push_back(e);
  return result;
}

void RecordingDeviceAllocator::deallocate(void* ptr, DeviceIndex index) {
  // The free is recorded under the lock it happens under: once upstream has the block back,
  // another thread may be handed the same address, and its allocation must be recorded after
  // this free, not before it.
  std::lock_guard<std::mutex> lock(mutex_);
  upstream().deallocate(ptr, index);
  AllocationEvent e;
  e.kind = AllocationEvent::Kind::Free;
  e.device = Device(device_type(), index);
  e.ptr = ptr;
  auto it = live_.find(ptr);
  if (it != live_.end()) {
    e.size = it->second.first;
    e.device = it->second.second;
    live_.erase(it);
  }
  events_.push_back(e);
}

std::vector<AllocationRecord> ledger_from_events(const std::vector<AllocationEvent>& events,
                                                 std::vector<AllocationEvent>* unknown_frees) {
  std::vector<AllocationRecord> ledger;
  std::unordered_map<const void*, size_t> live;  // pointer -> ledger index
  uint64_t seq = 0;
  for (const AllocationEvent& e : events) {
    switch (e.kind) {
      case AllocationEvent::Kind::FailedAllocate:
        ++seq;
        break;
      case AllocationEvent::Kind::Allocate: {
        AllocationRecord r;
        r.seq = ++seq;
        r.device = e.device;
        r.size = e.size;
        r.alignment = e.alignment;
        r.owner = e.owner;
        r.ptr = e.ptr;
        live[e.ptr] = ledger.size();
        ledger.push_back(r);
        break;
      }
      case AllocationEvent::Kind::Free: {
        auto it = live.find(e.ptr);
        if (it == live.end()) {
          if (unknown_frees != nullptr) unknown_frees->push_back(e);
          break;
        }
        ledger[it->second].live = false;
        live.erase(it);
        break;
      }
    }
  }
  return ledger;
}

std::vector<AllocationEvent> RecordingDeviceAllocator::events() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return events_;
}

}  // namespace devplan
