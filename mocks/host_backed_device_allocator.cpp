#include <mocks/host_backed_device_allocator.h>

#include <cstring>
#include <new>
#include <utility>

#include <mocks/allocation_text.h>
#include <mocks/asan_poisoning.h>

namespace devplan {

HostBackedDeviceAllocator::HostBackedDeviceAllocator(DeviceType type, std::string name)
    : type_(type), name_(std::move(name)) {}

HostBackedDeviceAllocator::~HostBackedDeviceAllocator() {
  for (auto& [ptr, block] : blocks_) {
    asan_unpoison(ptr, block.size);
    ::operator delete(const_cast<void*>(ptr), std::align_val_t(block.alignment));
  }
}

Result<void*> HostBackedDeviceAllocator::allocate(size_t nbytes, DeviceIndex index,
                                                  size_t alignment) {
  const Device device(type_, index);
  if (!is_power_of_two(alignment)) {
    return allocation_error(ErrorCode::InvalidArgument,
                            "alignment " + std::to_string(alignment) + " for " +
                                bytes_on_device(nbytes, device) + " is not a power of two");
  }
  void* ptr = nullptr;
  if (nbytes <= kHostAllocationLimit) {
    ptr = ::operator new(nbytes, std::align_val_t(alignment), std::nothrow);
  }
  if (ptr == nullptr) {
    return allocation_error(
        ErrorCode::MemoryAllocationFailed,
        "host memory for " + bytes_on_device(nbytes, device) + " could not be allocated");
  }
  if (nbytes > 0 && fill_patterns_) std::memset(ptr, kFreshPattern, nbytes);
  add_block(ptr, HostBlock{nbytes, alignment, index, false});
  return ptr;
}

void HostBackedDeviceAllocator::deallocate(void* ptr, DeviceIndex /*index*/) {
  auto it = blocks_.find(ptr);
  if (it == blocks_.end() || it->second.quarantined) return;  // not ours to judge: ignored
  quarantine(ptr, it->second);
}

void HostBackedDeviceAllocator::deallocate_sized(void* ptr, size_t /*nbytes*/, DeviceIndex index) {
  deallocate(ptr, index);  // the map knows the size, and the alignment the host needs back
}

std::optional<LiveBlock> HostBackedDeviceAllocator::find_live_block(const void* ptr) const {
  auto it = blocks_.find(ptr);
  if (it == blocks_.end() || it->second.quarantined) return std::nullopt;
  return LiveBlock{it->second.size, it->second.index};
}

Error HostBackedDeviceAllocator::copy_host_to_device(void* dst, const void* src, size_t nbytes,
                                                     DeviceIndex /*index*/) {
  if (nbytes > 0) std::memcpy(dst, src, nbytes);
  return Error::success();
}

Error HostBackedDeviceAllocator::copy_device_to_host(void* dst, const void* src, size_t nbytes,
                                                     DeviceIndex /*index*/) {
  if (nbytes > 0) std::memcpy(dst, src, nbytes);
  return Error::success();
}

void HostBackedDeviceAllocator::set_quarantine_limits(size_t max_bytes, size_t max_blocks) {
  quarantine_.set_limits(max_bytes, max_blocks);
  quarantine_.evict_over_limits([this](const BlockQuarantine::Entry& e) { release(e.ptr); });
}

bool HostBackedDeviceAllocator::is_quarantined(const void* ptr) const {
  auto it = blocks_.find(ptr);
  return it != blocks_.end() && it->second.quarantined;
}

void HostBackedDeviceAllocator::read_held(const void* block_start, const void* ptr, size_t nbytes,
                                          void* out) const {
  const bool poisoned = is_quarantined(block_start);
  const size_t block_size = poisoned ? blocks_.at(block_start).size : 0;
  if (poisoned) asan_unpoison(block_start, block_size);
  std::memcpy(out, ptr, nbytes);
  if (poisoned) asan_poison(block_start, block_size);
}

void HostBackedDeviceAllocator::release_quarantine() {
  quarantine_.evict_all([this](const BlockQuarantine::Entry& e) { release(e.ptr); });
}

Error HostBackedDeviceAllocator::allocation_error(ErrorCode code,
                                                  const std::string& message) const {
  return Error(code, name_ + "::allocate: " + message);
}

void HostBackedDeviceAllocator::add_block(const void* ptr, const HostBlock& block) {
  if (spare_.empty()) {
    blocks_.emplace(ptr, block);
    return;
  }
  spare_.key() = ptr;
  spare_.mapped() = block;
  blocks_.insert(std::move(spare_));
}

void HostBackedDeviceAllocator::quarantine(const void* ptr, HostBlock& block) {
  block.quarantined = true;
  if (!quarantine_.admits(block.size)) {
    release(ptr);
    return;
  }
  if (block.size > 0 && fill_patterns_) {
    std::memset(const_cast<void*>(ptr), kFreedPattern, block.size);
  }
  asan_poison(ptr, block.size);
  quarantine_.push({ptr, block.size});
  quarantine_.evict_over_limits([this](const BlockQuarantine::Entry& e) { release(e.ptr); });
}

void HostBackedDeviceAllocator::release(const void* ptr) {
  auto it = blocks_.find(ptr);
  asan_unpoison(ptr, it->second.size);
  ::operator delete(const_cast<void*>(ptr), std::align_val_t(it->second.alignment));
  spare_ = blocks_.extract(it);
  if (on_release_) on_release_(ptr);
}

}  // namespace devplan
