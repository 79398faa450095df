// Misuse detection for LedgerDeviceAllocator and TrackingDeviceAllocator: classifies a bad free or
// a bad copy against the blocks of one BlockRegistry or of several (BlockRegistrySet) and writes
// its report line (the lines are listed at MisuseKind). Both copy directions take one path; only
// the words differ (into/from, source/destination).
#pragma once

#include <optional>
#include <string>

#include <mocks/block_registry.h>
#include <mocks/block_registry_set.h>
#include <mocks/copy_direction.h>

namespace devplan {

struct DetectedMisuse {
  MisuseKind kind = MisuseKind::UnknownPointer;
  const BlockRegistry::Block* block = nullptr;  // the allocation involved, if known
  std::string line;                             // the report line
};

// A free on `call_device` of the live block `block` allocated on another device.
DetectedMisuse wrong_device_free(const BlockRegistry::Block& block, const Device& call_device);

// A free of `ptr`, which starts no live block: a double free, an interior or an unknown pointer.
DetectedMisuse classify_bad_free(const BlockRegistrySet& blocks, const void* ptr,
                                 const Device& call_device);

// The misuse in `copy` (nbytes > 0) on a device of `type`, or nullopt for a good copy: the device
// range must lie in one live block allocated on copy.index, and the host range must overlap no
// block that still holds memory.
std::optional<DetectedMisuse> find_copy_misuse(const BlockRegistrySet& blocks,
                                               const DeviceCopy& copy, DeviceType type);

}  // namespace devplan
