// CopyDirection and DeviceCopy: one copy_host_to_device / copy_device_to_host call as a value, so
// that the allocators in mocks/ check, fail, count and perform both directions on one path.
#pragma once

#include <cstddef>
#include <cstdint>

#include <runtime_ext/core/device.h>

namespace devplan {

// Which copy directions fail_copies() makes fail. A bit set.
enum class CopyDirection : uint8_t {
  None = 0,
  HostToDevice = 1,
  DeviceToHost = 2,
  Both = 3,
};

// True when the set `set` includes the direction `one`.
inline bool has_direction(CopyDirection set, CopyDirection one) {
  return (static_cast<uint8_t>(set) & static_cast<uint8_t>(one)) != 0;
}

// The arguments of one copy call; `direction` is HostToDevice or DeviceToHost.
struct DeviceCopy {
  CopyDirection direction = CopyDirection::HostToDevice;
  void* dst = nullptr;
  const void* src = nullptr;
  size_t nbytes = 0;
  DeviceIndex index = 0;

  bool to_device() const { return direction == CopyDirection::HostToDevice; }
  const void* device_ptr() const { return to_device() ? dst : src; }
  const void* host_ptr() const { return to_device() ? src : dst; }
  // The DeviceAllocator method: "copy_host_to_device" or "copy_device_to_host".
  const char* method() const { return to_device() ? "copy_host_to_device" : "copy_device_to_host"; }
};

}  // namespace devplan
