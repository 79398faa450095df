#include <mocks/block_store_device_allocator.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <utility>
#include <vector>

#include <mocks/allocation_text.h>
#include <mocks/asan_poisoning.h>

namespace devplan {

namespace {

// Fills go to an upstream device in copies of at most this many bytes from one pattern buffer.
constexpr size_t kDeviceFillChunk = size_t{1} << 20;

}  // namespace

const char* device_backing_name(DeviceBacking backing) {
  switch (backing) {
    case DeviceBacking::Unbacked:
      return "unbacked";
    case DeviceBacking::Device:
      return "device";
    case DeviceBacking::Host:
      break;
  }
  return "host";
}

BlockStoreDeviceAllocator::BlockStoreDeviceAllocator(DeviceType type, std::string name,
                                                     DeviceAllocator* upstream)
    : upstream_(upstream),
      type_(type),
      name_(std::move(name)),
      backing_(upstream != nullptr ? DeviceBacking::Device : DeviceBacking::Host) {}

BlockStoreDeviceAllocator::~BlockStoreDeviceAllocator() {
  blocks_.for_each([this](const void* ptr, const HostBlock& block) {
    if (upstream_ != nullptr) {
      upstream_->deallocate(const_cast<void*>(ptr), block.index);
      return;
    }
    if (block.unbacked) {
      reserved_.unreserve(ptr, block.size);
      return;
    }
    asan_unpoison(ptr, block.size);
    ::operator delete(const_cast<void*>(ptr), std::align_val_t(block.alignment));
  });
}

Result<void*> BlockStoreDeviceAllocator::allocate(size_t nbytes, DeviceIndex index,
                                                  size_t alignment) {
  const Device device(type_, index);
  if (!is_power_of_two(alignment)) {
    return allocation_error(ErrorCode::InvalidArgument,
                            "alignment " + std::to_string(alignment) + " for " +
                                bytes_on_device(nbytes, device) + " is not a power of two");
  }
  if (upstream_ != nullptr) {
    // One byte for an empty block, so that it has an address of its own.
    Result<void*> got = upstream_->allocate(nbytes > 0 ? nbytes : 1, index, alignment);
    if (!got.ok()) {
      return allocation_error(got.error().code(),
                              bytes_on_device(nbytes, device) + ": " + got.error().message());
    }
    if (nbytes > 0 && fill_patterns_) fill(*got, nbytes, kFreshPattern, index);
    blocks_.insert(*got, HostBlock{nbytes, alignment, index, false});
    return *got;
  }
  if (backing_ == DeviceBacking::Unbacked) {
    Result<void*> reserved =
        nbytes <= kHostAllocationLimit
            ? reserved_.reserve(nbytes, alignment)
            : Result<void*>(Error(ErrorCode::MemoryAllocationFailed, "above the 1 TiB limit"));
    if (!reserved.ok()) {
      return allocation_error(ErrorCode::MemoryAllocationFailed,
                              "address space for " + bytes_on_device(nbytes, device) +
                                  " could not be reserved: " + reserved.error().message());
    }
    unbacked_blocks_.emplace(reinterpret_cast<uintptr_t>(*reserved), nbytes);
    blocks_.insert(*reserved, HostBlock{nbytes, alignment, index, false, true});
    return *reserved;
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
  blocks_.insert(ptr, HostBlock{nbytes, alignment, index, false});
  return ptr;
}

void BlockStoreDeviceAllocator::deallocate(void* ptr, DeviceIndex /*index*/) {
  HostBlock* block = blocks_.find(ptr);
  if (block == nullptr || block->quarantined) return;  // not ours to judge: ignored
  quarantine(ptr, *block);
}

void BlockStoreDeviceAllocator::deallocate_sized(void* ptr, size_t /*nbytes*/, DeviceIndex index) {
  deallocate(ptr, index);  // the map knows the size, and the alignment the host needs back
}

std::optional<LiveBlock> BlockStoreDeviceAllocator::find_live_block(const void* ptr) const {
  const HostBlock* block = blocks_.find(ptr);
  if (block == nullptr || block->quarantined) return std::nullopt;
  return LiveBlock{block->size, block->index};
}

Error BlockStoreDeviceAllocator::copy_host_to_device(void* dst, const void* src, size_t nbytes,
                                                     DeviceIndex index) {
  if (upstream_ != nullptr) return upstream_->copy_host_to_device(dst, src, nbytes, index);
  DEVPLAN_RETURN_IF_ERROR(back_for_copy(dst, nbytes));
  if (nbytes > 0) std::memcpy(dst, src, nbytes);
  return Error::success();
}

Error BlockStoreDeviceAllocator::copy_device_to_host(void* dst, const void* src, size_t nbytes,
                                                     DeviceIndex index) {
  if (upstream_ != nullptr) return upstream_->copy_device_to_host(dst, src, nbytes, index);
  DEVPLAN_RETURN_IF_ERROR(back_for_copy(src, nbytes));
  if (nbytes > 0) std::memcpy(dst, src, nbytes);
  return Error::success();
}

void BlockStoreDeviceAllocator::set_quarantine_limits(size_t max_bytes, size_t max_blocks) {
  quarantine_.set_limits(max_bytes, max_blocks);
  quarantine_.evict_over_limits([this](const BlockQuarantine::Entry& e) { release(e.ptr); });
}

bool BlockStoreDeviceAllocator::is_quarantined(const void* ptr) const {
  const HostBlock* block = blocks_.find(ptr);
  return block != nullptr && block->quarantined;
}

void BlockStoreDeviceAllocator::read_held(const void* block_start, const void* ptr, size_t nbytes,
                                          void* out) const {
  const HostBlock& block = *blocks_.find(block_start);
  if (upstream_ != nullptr) {
    Error read = upstream_->copy_device_to_host(out, ptr, nbytes, block.index);
    if (!read.ok()) std::memset(out, 0, nbytes);  // a device that cannot be read reads as zeros
    return;
  }
  if (block.unbacked) {
    if (block.quarantined) {  // its pages were dropped when it was freed
      std::memset(out, fill_patterns_ ? kFreedPattern : 0, nbytes);
    } else {
      reserved_.read(ptr, nbytes, fill_patterns_ ? kFreshPattern : 0, out);
    }
    return;
  }
  const bool poisoned = is_quarantined(block_start);
  const size_t block_size = poisoned ? block.size : 0;
  if (poisoned) asan_unpoison(block_start, block_size);
  std::memcpy(out, ptr, nbytes);
  if (poisoned) asan_poison(block_start, block_size);
}

void BlockStoreDeviceAllocator::release_quarantine() {
  quarantine_.evict_all([this](const BlockQuarantine::Entry& e) { release(e.ptr); });
}

Error BlockStoreDeviceAllocator::allocation_error(ErrorCode code,
                                                  const std::string& message) const {
  return Error(code, name_ + "::allocate: " + message);
}

void BlockStoreDeviceAllocator::quarantine(const void* ptr, HostBlock& block) {
  block.quarantined = true;
  if (block.unbacked) {  // no host memory stays behind it; the range stays reserved
    reserved_.drop(ptr, block.size);
    if (!quarantine_.admits(0)) {
      release(ptr);
      return;
    }
    quarantine_.push({ptr, 0});
    quarantine_.evict_over_limits([this](const BlockQuarantine::Entry& e) { release(e.ptr); });
    return;
  }
  if (!quarantine_.admits(block.size)) {
    release(ptr);
    return;
  }
  if (block.size > 0 && fill_patterns_) {
    fill(const_cast<void*>(ptr), block.size, kFreedPattern, block.index);
  }
  if (upstream_ == nullptr) asan_poison(ptr, block.size);
  quarantine_.push({ptr, block.size});
  quarantine_.evict_over_limits([this](const BlockQuarantine::Entry& e) { release(e.ptr); });
}

void BlockStoreDeviceAllocator::release(const void* ptr) {
  const HostBlock block = *blocks_.find(ptr);
  if (upstream_ != nullptr) {
    upstream_->deallocate(const_cast<void*>(ptr), block.index);
  } else if (block.unbacked) {
    reserved_.unreserve(ptr, block.size);
    unbacked_blocks_.erase(reinterpret_cast<uintptr_t>(ptr));
  } else {
    asan_unpoison(ptr, block.size);
    ::operator delete(const_cast<void*>(ptr), std::align_val_t(block.alignment));
  }
  blocks_.erase(ptr);
  if (on_release_) on_release_(ptr);
}

void BlockStoreDeviceAllocator::fill(void* ptr, size_t nbytes, uint8_t pattern, DeviceIndex index) {
  if (upstream_ == nullptr) {
    std::memset(ptr, pattern, nbytes);
    return;
  }
  const std::vector<uint8_t> chunk(std::min(nbytes, kDeviceFillChunk), pattern);
  for (size_t done = 0; done < nbytes; done += chunk.size()) {
    // A fill that fails leaves the device's bytes as they were: only the patterns are lost.
    (void)upstream_->copy_host_to_device(static_cast<uint8_t*>(ptr) + done, chunk.data(),
                                         std::min(chunk.size(), nbytes - done), index);
  }
}

Error BlockStoreDeviceAllocator::back_for_copy(const void* ptr, size_t nbytes) {
  if (nbytes == 0 || unbacked_blocks_.empty()) return Error::success();
  const uintptr_t address = reinterpret_cast<uintptr_t>(ptr);
  auto next = unbacked_blocks_.upper_bound(address);
  if (next == unbacked_blocks_.begin()) return Error::success();
  const auto& [start, size] = *std::prev(next);
  if (address - start >= size) return Error::success();  // a host-backed block
  Error backed = reserved_.back(ptr, nbytes, fill_patterns_ ? kFreshPattern : 0);
  if (!backed.ok())
    return Error(ErrorCode::MemoryAllocationFailed, name_ + ": " + backed.message());
  return Error::success();
}

}  // namespace devplan
