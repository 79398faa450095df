// The records LedgerDeviceAllocator keeps (and TrackingDeviceAllocator reports): one per
// successful allocate() call, one per failed call, one per misuse; and the lines that name them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <runtime_ext/core/device.h>
#include <runtime_ext/core/error.h>

namespace devplan {

// One successful allocate() call.
struct AllocationRecord {
  uint64_t seq = 0;           // the call's sequence number (1-based)
  Device device;              // device_type() and the index passed to allocate()
  size_t size = 0;            // bytes requested
  size_t alignment = 0;       // alignment requested
  std::string owner;          // current_allocation_owner() at allocate time; "" when none
  const void* ptr = nullptr;  // the device pointer returned (an address, never dereference)
  bool live = true;           // false once deallocated
};

// One failed allocate() call (bad argument, injected fault, capacity, host out of memory).
struct FailedAllocation {
  uint64_t seq = 0;
  Device device;
  size_t size = 0;
  size_t alignment = 0;
  std::string owner;
  ErrorCode code = ErrorCode::Ok;  // the code allocate() returned
  std::string reason;              // the message allocate() returned
};

// What went wrong. The line each kind writes to the misuse report is given below; ALLOC stands
// for "#<seq> <device> <size> B owner <owner or ->", OP for the method name
// (copy_host_to_device / copy_device_to_host), PTR for the pointer as 0x<lower-case hex>.
enum class MisuseKind : uint8_t {
  // "double free of ALLOC"
  DoubleFree,
  // "free of unknown pointer PTR on cuda:0", or, for a pointer inside a block that does not
  // start there, "free of interior pointer PTR (offset 16) of ALLOC" (the block stays live)
  // or "... of freed ALLOC".
  UnknownPointer,
  // "free on cuda:1 of ALLOC" (the block is freed anyway).
  WrongDeviceFree,
  // "OP of 64 B at offset 16 past the end of ALLOC"
  CopyOutOfBounds,
  // "copy_host_to_device of 16 B at offset 0 into freed ALLOC"
  CopyToFreedMemory,
  // "copy_device_to_host of 16 B at offset 0 from freed ALLOC"
  CopyFromFreedMemory,
  // "copy_host_to_device of 16 B to unknown pointer PTR on cuda:0" /
  // "copy_device_to_host of 16 B from unknown pointer PTR on cuda:0"
  CopyUnknownPointer,
  // "copy_host_to_device on cuda:1 of 16 B at offset 0 into ALLOC" /
  // "copy_device_to_host on cuda:1 of 16 B at offset 0 from ALLOC"
  CopyWrongDevice,
  // The host side of a copy points into device memory (works in simulation, crashes on a GPU):
  // "copy_host_to_device with host source PTR overlapping ALLOC" /
  // "copy_device_to_host with host destination PTR overlapping ALLOC"
  // ("overlapping freed ALLOC" when the block is quarantined).
  HostPointerInDeviceMemory,
};

// "DoubleFree", "UnknownPointer", ... (the enumerator's name).
const char* misuse_kind_name(MisuseKind kind);

struct MisuseRecord {
  MisuseKind kind = MisuseKind::UnknownPointer;
  Device device;                // device_type() and the index passed to the faulty call
  uint64_t allocation_seq = 0;  // the allocation involved; 0 when none is known
  const void* ptr = nullptr;    // the device pointer passed to the faulty call
  std::string message;          // the report line (see MisuseKind)
};

// The leak-report line of `record`: "#7 cuda:0 48 B align 16 owner forward/buffer 1".
std::string format_allocation(const AllocationRecord& record);

// The allocation as misuse lines name it (ALLOC above): "#3 cuda:0 48 B owner forward/buffer 1".
std::string describe_allocation(const AllocationRecord& record);

// The records of `ledger` still live (the leaks once everything should be freed), in order.
std::vector<AllocationRecord> live_records(const std::vector<AllocationRecord>& ledger);

}  // namespace devplan
