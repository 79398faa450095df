// Device memory a caller supplies to a method: skip-copy programs leave their device inputs and
// outputs unplanned (runtime-bound), and whoever runs the method allocates them. The harness
// does it the way a caller would, through the device's allocator, with the owner
// "<method>/input <i>" or "<method>/output <i>", so they appear in the ledger like every other
// allocation; the memory is freed when this object goes away.
//
//   Result<CallerDeviceMemory> m = CallerDeviceMemory::allocate(allocator, 64, Device::cuda(0),
//                                                                "forward/input 0");
#pragma once

#include <cstddef>
#include <string>

#include <runtime_ext/core/device.h>
#include <runtime_ext/core/device_allocator.h>
#include <runtime_ext/core/result.h>

namespace devplan::harness {

class CallerDeviceMemory {
 public:
  static Result<CallerDeviceMemory> allocate(DeviceAllocator* allocator, size_t nbytes, Device device,
                                             const std::string& owner);
  CallerDeviceMemory() = default;
  CallerDeviceMemory(CallerDeviceMemory&& other) noexcept;
  CallerDeviceMemory& operator=(CallerDeviceMemory&& other) noexcept;
  CallerDeviceMemory(const CallerDeviceMemory&) = delete;
  CallerDeviceMemory& operator=(const CallerDeviceMemory&) = delete;
  ~CallerDeviceMemory();

  void* data() const { return data_; }
  size_t size() const { return size_; }
  Device device() const { return device_; }
  // Copies `nbytes` (at most size()) of host memory in through the allocator.
  Error fill(const void* host, size_t nbytes) const;

 private:
  void release();

  DeviceAllocator* allocator_ = nullptr;
  void* data_ = nullptr;
  size_t size_ = 0;
  Device device_;
};

}  // namespace devplan::harness
