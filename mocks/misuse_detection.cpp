#include <mocks/misuse_detection.h>

#include <cstdint>

#include <mocks/allocation_text.h>

namespace devplan {
namespace {

using Block = BlockRegistry::Block;

uintptr_t offset_in(const Block& block, const void* ptr) {
  return reinterpret_cast<uintptr_t>(ptr) - reinterpret_cast<uintptr_t>(block.ptr);
}

// The device side of a copy: out of bounds or on the wrong device (in a live block), into or
// from a freed block, or an unknown pointer.
std::optional<DetectedMisuse> device_range_misuse(const BlockRegistrySet& blocks,
                                                  const DeviceCopy& copy, DeviceType type) {
  const std::string op = std::string(copy.method()) + " of " + std::to_string(copy.nbytes) + " B";
  const char* const direction = copy.to_device() ? "into " : "from ";
  const void* const ptr = copy.device_ptr();
  if (const Block* block = blocks.live_containing(ptr)) {
    const Block& r = *block;
    const uintptr_t offset = offset_in(*block, ptr);
    const std::string at = " at offset " + std::to_string(offset);
    if (copy.nbytes > r.size - offset) {
      return DetectedMisuse{MisuseKind::CopyOutOfBounds, block,
                            op + at + " past the end of " + describe_allocation(r.record())};
    }
    if (r.device.index == copy.index) return std::nullopt;
    return DetectedMisuse{MisuseKind::CopyWrongDevice, block,
                          std::string(copy.method()) + " on " +
                              Device(type, copy.index).to_string() + " of " +
                              std::to_string(copy.nbytes) + " B" + at + " " + direction +
                              describe_allocation(r.record())};
  }
  if (const Block* freed = blocks.freed_containing(ptr)) {
    return DetectedMisuse{
        copy.to_device() ? MisuseKind::CopyToFreedMemory : MisuseKind::CopyFromFreedMemory, freed,
        op + " at offset " + std::to_string(offset_in(*freed, ptr)) + " " + direction + "freed " +
            describe_allocation(freed->record())};
  }
  return DetectedMisuse{MisuseKind::CopyUnknownPointer, nullptr,
                        op + (copy.to_device() ? " to" : " from") + " unknown pointer " +
                            pointer_text(ptr) + " on " + Device(type, copy.index).to_string()};
}

}  // namespace

DetectedMisuse wrong_device_free(const Block& block, const Device& call_device) {
  return DetectedMisuse{
      MisuseKind::WrongDeviceFree, &block,
      "free on " + call_device.to_string() + " of " + describe_allocation(block.record())};
}

DetectedMisuse classify_bad_free(const BlockRegistrySet& blocks, const void* ptr,
                                 const Device& call_device) {
  if (const Block* freed = blocks.freed_at(ptr)) {
    return DetectedMisuse{MisuseKind::DoubleFree, freed,
                          "double free of " + describe_allocation(freed->record())};
  }
  const Block* inside = blocks.live_containing(ptr);
  const char* state = "";
  if (inside == nullptr) {
    inside = blocks.freed_containing(ptr);
    state = "freed ";
  }
  if (inside != nullptr) {
    return DetectedMisuse{MisuseKind::UnknownPointer, inside,
                          "free of interior pointer " + pointer_text(ptr) + " (offset " +
                              std::to_string(offset_in(*inside, ptr)) + ") of " + state +
                              describe_allocation(inside->record())};
  }
  return DetectedMisuse{
      MisuseKind::UnknownPointer, nullptr,
      "free of unknown pointer " + pointer_text(ptr) + " on " + call_device.to_string()};
}

std::optional<DetectedMisuse> find_copy_misuse(const BlockRegistrySet& blocks,
                                               const DeviceCopy& copy, DeviceType type) {
  if (std::optional<DetectedMisuse> misuse = device_range_misuse(blocks, copy, type)) {
    return misuse;
  }
  const Block* host_block = blocks.held_overlapping(copy.host_ptr(), copy.nbytes);
  if (host_block == nullptr) return std::nullopt;
  return DetectedMisuse{
      MisuseKind::HostPointerInDeviceMemory, host_block,
      std::string(copy.method()) + " with host " + (copy.to_device() ? "source " : "destination ") +
          pointer_text(copy.host_ptr()) + " overlapping " + (host_block->live ? "" : "freed ") +
          describe_allocation(host_block->record())};
}

}  // namespace devplan
