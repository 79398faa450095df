// DeviceAllocator: the interface through which the runtime allocates planned buffers on a
// device and moves bytes between host and device. One implementation serves every index of
// one DeviceType (CudaAllocator for CUDA, TrackingDeviceAllocator in simulation).
//
// Host code never dereferences a pointer returned by allocate(); it goes back to the same
// allocator through deallocate() or the copy functions.
//
// Threading: implementations must be safe to call from many threads at once.
#pragma once

#include <cstddef>

#include <runtime_ext/core/alignment.h>
#include <runtime_ext/core/device.h>
#include <runtime_ext/core/result.h>

namespace devplan {

class DeviceAllocator {
 public:
  virtual ~DeviceAllocator() = default;

  // Allocates `nbytes` on device `index` of device_type(), aligned to `alignment` (a power of
  // two). Errors: InvalidArgument (bad alignment or index), MemoryAllocationFailed.
  virtual Result<void*> allocate(size_t nbytes, DeviceIndex index,
                                 size_t alignment = kDefaultAlignment) = 0;

  // Frees memory from allocate(ptr, index). Never fails; misuse is the allocator's to report.
  virtual void deallocate(void* ptr, DeviceIndex index) = 0;

  // Copies `nbytes` from host `src` to device memory `dst` on device `index`.
  virtual Error copy_host_to_device(void* dst, const void* src, size_t nbytes,
                                    DeviceIndex index) = 0;

  // Copies `nbytes` from device memory `src` on device `index` to host `dst`.
  virtual Error copy_device_to_host(void* dst, const void* src, size_t nbytes,
                                    DeviceIndex index) = 0;

  virtual DeviceType device_type() const = 0;
};

}  // namespace devplan
