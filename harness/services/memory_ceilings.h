// MemoryCeilings: the limits that keep a hostile or corrupt program from exhausting this machine
// when `simulate` or `run` loads it, as options with defaults:
//
//   --max-device-allocation SIZE   the largest one simulated device allocation may be. Default:
//                                  1 TiB with unbacked device memory (an address range costs no
//                                  RAM), 4 GiB with host-backed memory (each byte is host RAM),
//                                  none on a real device (the device refuses what it cannot hold).
//   --max-host-buffer SIZE         the most host planned memory one method may take (runtime_ext;
//                                  ExecuTorch's Module allocates its host buffers itself).
//                                  Default 4 GiB.
//
// A program that needs more fails to load with MemoryAllocationFailed, naming the limit; raise
// the option to load it.
#pragma once

#include <cstdint>

#include <mocks/block_store_device_allocator.h>

namespace devplan::harness {

struct MemoryCeilings {
  static constexpr uint64_t kBackedDeviceAllocationBytes = uint64_t{4} << 30;
  static constexpr uint64_t kUnbackedDeviceAllocationBytes =
      BlockStoreDeviceAllocator::kHostAllocationLimit;
  static constexpr uint64_t kHostBufferBytes = uint64_t{4} << 30;

  uint64_t max_device_allocation_bytes = 0;  // 0: the default for the backing (see above)
  uint64_t max_host_buffer_bytes = kHostBufferBytes;

  // The device allocation ceiling in effect for `backing`.
  uint64_t device_allocation_limit(DeviceBacking backing) const {
    if (max_device_allocation_bytes != 0) return max_device_allocation_bytes;
    if (backing == DeviceBacking::Device) return UINT64_MAX;
    return backing == DeviceBacking::Unbacked ? kUnbackedDeviceAllocationBytes
                                              : kBackedDeviceAllocationBytes;
  }
};

// Declares --max-device-allocation and --max-host-buffer on `app` (sizes as --capacity takes
// them: 512MiB, 16GiB, 1TiB, ...; zero is a usage error).
}  // namespace devplan::harness
