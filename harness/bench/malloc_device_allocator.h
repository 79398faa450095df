// MallocDeviceAllocator: the cheapest honest DeviceAllocator, for benchmarks. "Device" memory is
// host memory from aligned_alloc, freed with free; no ledger, no checks beyond the arguments,
// no locking (the C library's allocator is thread-safe). It is the baseline the benchmarks
// compare TrackingDeviceAllocator against, and it isolates the runtime's own device path
// (DeviceMemoryBuffer, the registry, PlannedMemory) from the tracking allocator's cost.
//
//   devplan::bench::MallocDeviceAllocator plain;          // serves DeviceType::CUDA
//   devplan::ScopedDeviceAllocator scoped(&plain);
//
// Threading: every method may be called from many threads at once.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstring>

#include <runtime_ext/core/alignment.h>
#include <runtime_ext/core/device_allocator.h>

namespace devplan::bench {

class MallocDeviceAllocator : public DeviceAllocator {
 public:
  explicit MallocDeviceAllocator(DeviceType type = DeviceType::CUDA) : type_(type) {}

  // InvalidArgument for an alignment that is not a power of two or a negative index;
  // MemoryAllocationFailed when aligned_alloc fails. A zero-byte request gets a unique block.
  Result<void*> allocate(size_t nbytes, DeviceIndex index, size_t alignment) override {
    if (!is_power_of_two(alignment) || index < 0) {
      return Error(ErrorCode::InvalidArgument, "MallocDeviceAllocator: bad alignment " +
                                                   std::to_string(alignment) + " or index " +
                                                   std::to_string(index));
    }
    if (alignment < sizeof(void*)) alignment = sizeof(void*);
    // aligned_alloc wants a size that is a non-zero multiple of the alignment.
    if (nbytes > SIZE_MAX - alignment) {
      return Error(ErrorCode::MemoryAllocationFailed, "MallocDeviceAllocator: size too large");
    }
    const size_t rounded = nbytes == 0 ? alignment : (nbytes + alignment - 1) & ~(alignment - 1);
    void* ptr = std::aligned_alloc(alignment, rounded);
    if (ptr == nullptr) {
      return Error(ErrorCode::MemoryAllocationFailed,
                   "MallocDeviceAllocator: no memory for " + std::to_string(nbytes) + " bytes");
    }
    return ptr;
  }
  void deallocate(void* ptr, DeviceIndex) override { std::free(ptr); }
  Error copy_host_to_device(void* dst, const void* src, size_t nbytes, DeviceIndex) override {
    if (nbytes > 0) std::memcpy(dst, src, nbytes);
    return Error::success();
  }
  Error copy_device_to_host(void* dst, const void* src, size_t nbytes, DeviceIndex) override {
    if (nbytes > 0) std::memcpy(dst, src, nbytes);
    return Error::success();
  }
  DeviceType device_type() const override { return type_; }

 private:
  const DeviceType type_;
};

}  // namespace devplan::bench
