// Helpers shared by the TrackingDeviceAllocator tests (one file per concern: allocation and
// the ledger, misuse, faults and devices, reports and reset, quarantine).
#pragma once

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <mocks/tracking_device_allocator.h>

namespace devplan::tracking_test {

// The pointer as the allocator writes it in messages.
inline std::string hex(const void* ptr) {
  char text[32];
  std::snprintf(text, sizeof(text), "0x%" PRIxPTR, reinterpret_cast<uintptr_t>(ptr));
  return text;
}

inline void* must_allocate(TrackingDeviceAllocator& a, size_t nbytes, DeviceIndex index = 0,
                           size_t alignment = kDefaultAlignment) {
  Result<void*> r = a.allocate(nbytes, index, alignment);
  EXPECT_TRUE(r.ok()) << r.error();
  return r.ok() ? *r : nullptr;
}

inline std::vector<uint8_t> peek_bytes(const TrackingDeviceAllocator& a, const void* ptr,
                                       size_t n) {
  std::vector<uint8_t> bytes(n, 0);
  Error err = a.peek(ptr, n, bytes.data());
  EXPECT_TRUE(err.ok()) << err;
  return bytes;
}

}  // namespace devplan::tracking_test
