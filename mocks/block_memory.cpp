#include <mocks/block_memory.h>

#include <algorithm>
#include <iterator>
#include <utility>
#include <vector>

#include <mocks/allocation_text.h>
#include <runtime_ext/core/alignment.h>

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

BlockMemory::BlockMemory(DeviceType type, std::string name, DeviceAllocator* upstream)
    : upstream_(upstream),
      type_(type),
      name_(std::move(name)),
      backing_(upstream != nullptr ? DeviceBacking::Device : DeviceBacking::Host) {}

Result<void*> BlockMemory::allocate(size_t nbytes, DeviceIndex index, size_t alignment) {
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
    return *reserved;
  }
  void* ptr = allocate_host(nbytes, alignment);
  if (ptr == nullptr) {
    return allocation_error(
        ErrorCode::MemoryAllocationFailed,
        "host memory for " + bytes_on_device(nbytes, device) + " could not be allocated");
  }
  return ptr;
}

void BlockMemory::poison_freed_elsewhere(void* ptr, size_t size, DeviceIndex index) {
  if (!unbacked_blocks_.empty() && is_unbacked(ptr)) return;  // its pages are gone already
  if (size > 0 && fill_patterns_) fill(ptr, size, kFreedPattern, index);
  if (upstream_ == nullptr) asan_poison(ptr, size);
}

void BlockMemory::release_elsewhere(const void* ptr, size_t size, size_t alignment,
                                    DeviceIndex index) {
  if (upstream_ != nullptr) {
    upstream_->deallocate(const_cast<void*>(ptr), index);
  } else if (!unbacked_blocks_.empty() && is_unbacked(ptr)) {
    reserved_.unreserve(ptr, size);
    unbacked_blocks_.erase(reinterpret_cast<uintptr_t>(ptr));
  } else {
    asan_unpoison(ptr, size);
    host_delete(const_cast<void*>(ptr), alignment);
  }
}

Error BlockMemory::copy_host_to_device(void* dst, const void* src, size_t nbytes,
                                       DeviceIndex index) {
  if (upstream_ != nullptr) return upstream_->copy_host_to_device(dst, src, nbytes, index);
  DEVPLAN_RETURN_IF_ERROR(back_for_copy(dst, nbytes));
  if (nbytes > 0) std::memcpy(dst, src, nbytes);
  return Error::success();
}

Error BlockMemory::copy_device_to_host(void* dst, const void* src, size_t nbytes,
                                       DeviceIndex index) {
  if (upstream_ != nullptr) return upstream_->copy_device_to_host(dst, src, nbytes, index);
  DEVPLAN_RETURN_IF_ERROR(back_for_copy(src, nbytes));
  if (nbytes > 0) std::memcpy(dst, src, nbytes);
  return Error::success();
}

void BlockMemory::read(const void* block_start, size_t size, DeviceIndex index, bool freed,
                       const void* ptr, size_t nbytes, void* out) const {
  if (upstream_ != nullptr) {
    Error read = upstream_->copy_device_to_host(out, ptr, nbytes, index);
    if (!read.ok()) std::memset(out, 0, nbytes);  // a device that cannot be read reads as zeros
    return;
  }
  if (is_unbacked(block_start)) {
    if (freed) {  // its pages were dropped when it was freed
      std::memset(out, fill_patterns_ ? kFreedPattern : 0, nbytes);
    } else {
      reserved_.read(ptr, nbytes, fill_patterns_ ? kFreshPattern : 0, out);
    }
    return;
  }
  const size_t poisoned_size = freed ? size : 0;
  if (freed) asan_unpoison(block_start, poisoned_size);
  std::memcpy(out, ptr, nbytes);
  if (freed) asan_poison(block_start, poisoned_size);
}

Error BlockMemory::allocation_error(ErrorCode code, const std::string& message) const {
  return Error(code, name_ + "::allocate: " + message);
}

void BlockMemory::fill(void* ptr, size_t nbytes, uint8_t pattern, DeviceIndex index) {
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

Error BlockMemory::back_for_copy(const void* ptr, size_t nbytes) {
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
