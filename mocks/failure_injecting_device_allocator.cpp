#include <mocks/failure_injecting_device_allocator.h>

#include <utility>

#include <mocks/allocation_text.h>

namespace devplan {

FailureInjectingDeviceAllocator::FailureInjectingDeviceAllocator(
    DeviceAllocator* upstream, const AllocationSequence* shared_sequence, std::string name)
    : DeviceAllocatorAdaptor(upstream, std::move(name)), shared_sequence_(shared_sequence) {}

Result<void*> FailureInjectingDeviceAllocator::allocate(size_t nbytes, DeviceIndex index,
                                                        size_t alignment) {
  const uint64_t seq = call_number();
  if (!has_allocation_faults()) return upstream().allocate(nbytes, index, alignment);
  const Device device(device_type(), index);
  const std::string fault = fault_for(seq, device);
  if (!fault.empty()) {
    return error("allocate", ErrorCode::MemoryAllocationFailed,
                 "injected fault: allocation #" + std::to_string(seq) + " of " +
                     bytes_on_device(nbytes, device) + " fails (" + fault + ")");
  }
  return upstream().allocate(nbytes, index, alignment);
}

void FailureInjectingDeviceAllocator::fail_allocation_at(uint64_t seq) {
  if (seq != 0) fail_at_.insert(seq);
}

Error FailureInjectingDeviceAllocator::fail_allocations_on(DeviceIndex index) {
  if (index < 0) {
    return negative_index_error(name(), "fail_allocations_on", Device(device_type(), index));
  }
  fail_devices_.set(index);
  return Error::success();
}

void FailureInjectingDeviceAllocator::clear_faults() {
  fail_at_.clear();
  fail_from_ = 0;
  fail_devices_.reset();
  fail_copies_ = CopyDirection::None;
}

Error FailureInjectingDeviceAllocator::copy(const DeviceCopy& c) {
  if (c.nbytes > 0 && has_direction(fail_copies_, c.direction)) {
    const Device device(device_type(), c.index);
    return error(c.method(), ErrorCode::Internal,
                 "injected fault: copy of " + std::to_string(c.nbytes) + " B " +
                     (c.to_device() ? "to " : "from ") + device.to_string() +
                     " fails (fail_copies)");
  }
  return forward_copy(c);
}

uint64_t FailureInjectingDeviceAllocator::call_number() {
  return shared_sequence_ != nullptr ? shared_sequence_->current() : own_sequence_.next();
}

std::string FailureInjectingDeviceAllocator::fault_for(uint64_t seq, const Device& device) const {
  if (fail_at_.count(seq) != 0) return "fail_allocation_at " + std::to_string(seq);
  if (fail_from_ != 0 && seq >= fail_from_) {
    return "fail_allocations_from " + std::to_string(fail_from_);
  }
  if (device.index >= 0 && fail_devices_[device.index]) {
    return "fail_allocations_on " + device.to_string();
  }
  return "";
}

}  // namespace devplan
