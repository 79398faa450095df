#include "counting_device_allocator.h"

#include <runtime_ext/core/text_join.h>

namespace devplan::cuda_testing {

Result<void*> CountingDeviceAllocator::allocate(size_t nbytes, DeviceIndex index,
                                                size_t alignment) {
  uint64_t call = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    call = ++calls_;
    if (call == fail_at_) {
      ++failures_;
      return Error(ErrorCode::MemoryAllocationFailed,
                   "CountingDeviceAllocator: injected failure of allocate call #" +
                       std::to_string(call) + " (" + std::to_string(nbytes) + " bytes on " +
                       Device(device_type(), index).to_string() + ")");
    }
  }
  // The upstream runs unlocked, so calls from several threads overlap as they would without
  // the adaptor.
  Result<void*> ptr = upstream_.allocate(nbytes, index, alignment);
  std::lock_guard<std::mutex> lock(mutex_);
  if (!ptr.ok()) {
    ++failures_;
    return ptr;
  }
  ++successes_;
  if (*ptr != nullptr) live_[*ptr] = Live{call, nbytes, index};
  return ptr;
}

void CountingDeviceAllocator::deallocate(void* ptr, DeviceIndex index) {
  if (ptr == nullptr) {
    upstream_.deallocate(ptr, index);
    return;
  }
  DeviceIndex owner_index = index;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = live_.find(ptr);
    if (it == live_.end()) {
      misuse_.push_back("free of unknown pointer " + pointer_text(ptr) + " on " +
                        Device(device_type(), index).to_string());
      return;
    }
    const Live block = it->second;
    if (block.index != index) {
      misuse_.push_back("free on " + Device(device_type(), index).to_string() + " of call #" +
                        std::to_string(block.call) + " (" + std::to_string(block.size) +
                        " bytes on " + Device(device_type(), block.index).to_string() + ")");
    }
    owner_index = block.index;
    live_.erase(it);
    ++frees_;
  }
  upstream_.deallocate(ptr, owner_index);
}

Error CountingDeviceAllocator::copy_host_to_device(void* dst, const void* src, size_t nbytes,
                                                   DeviceIndex index) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++host_to_device_copies_;
  }
  return upstream_.copy_host_to_device(dst, src, nbytes, index);
}

Error CountingDeviceAllocator::copy_device_to_host(void* dst, const void* src, size_t nbytes,
                                                   DeviceIndex index) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++device_to_host_copies_;
  }
  return upstream_.copy_device_to_host(dst, src, nbytes, index);
}

void CountingDeviceAllocator::fail_allocation_at(uint64_t call) {
  std::lock_guard<std::mutex> lock(mutex_);
  fail_at_ = call;
}

uint64_t CountingDeviceAllocator::allocate_calls() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return calls_;
}

uint64_t CountingDeviceAllocator::successful_allocations() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return successes_;
}

uint64_t CountingDeviceAllocator::failed_allocations() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return failures_;
}

size_t CountingDeviceAllocator::live_allocations() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return live_.size();
}

size_t CountingDeviceAllocator::live_allocations_on(DeviceIndex index) const {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t n = 0;
  for (const auto& entry : live_) n += entry.second.index == index ? 1 : 0;
  return n;
}

size_t CountingDeviceAllocator::live_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t bytes = 0;
  for (const auto& entry : live_) bytes += entry.second.size;
  return bytes;
}

uint64_t CountingDeviceAllocator::frees() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return frees_;
}

uint64_t CountingDeviceAllocator::host_to_device_copies() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return host_to_device_copies_;
}

uint64_t CountingDeviceAllocator::device_to_host_copies() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return device_to_host_copies_;
}

size_t CountingDeviceAllocator::misuse_count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return misuse_.size();
}

std::string CountingDeviceAllocator::misuse_report() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string report;
  for (const std::string& line : misuse_) report += line + "\n";
  return report;
}

}  // namespace devplan::cuda_testing
