#include <mocks/ledger_records.h>

#include <runtime_ext/core/byte_count.h>

namespace devplan {
namespace {

const std::string& owner_text(const std::string& owner) {
  static const std::string kNone = "-";
  return owner.empty() ? kNone : owner;
}

}  // namespace

const char* misuse_kind_name(MisuseKind kind) {
  switch (kind) {
    case MisuseKind::DoubleFree:
      return "DoubleFree";
    case MisuseKind::UnknownPointer:
      return "UnknownPointer";
    case MisuseKind::WrongDeviceFree:
      return "WrongDeviceFree";
    case MisuseKind::CopyOutOfBounds:
      return "CopyOutOfBounds";
    case MisuseKind::CopyToFreedMemory:
      return "CopyToFreedMemory";
    case MisuseKind::CopyFromFreedMemory:
      return "CopyFromFreedMemory";
    case MisuseKind::CopyUnknownPointer:
      return "CopyUnknownPointer";
    case MisuseKind::CopyWrongDevice:
      return "CopyWrongDevice";
    case MisuseKind::HostPointerInDeviceMemory:
      return "HostPointerInDeviceMemory";
  }
  return "Unknown";
}

std::string format_allocation(const AllocationRecord& r) {
  return "#" + std::to_string(r.seq) + " " + r.device.to_string() + " " + format_bytes(r.size) +
         " align " + std::to_string(r.alignment) + " owner " + owner_text(r.owner);
}

std::string describe_allocation(const AllocationRecord& r) {
  return "#" + std::to_string(r.seq) + " " + r.device.to_string() + " " + format_bytes(r.size) +
         " owner " + owner_text(r.owner);
}

std::vector<AllocationRecord> live_records(const std::vector<AllocationRecord>& ledger) {
  std::vector<AllocationRecord> live;
  for (const AllocationRecord& r : ledger) {
    if (r.live) live.push_back(r);
  }
  return live;
}

}  // namespace devplan
