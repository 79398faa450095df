// ReservedAddressSpace: simulated device blocks that are address ranges with no host memory
// behind them (BlockStoreDeviceAllocator's DeviceBacking::Unbacked). A block is an anonymous
// PROT_NONE mapping reserved with MAP_NORESERVE, so 16 GiB of "device memory" costs a page-table
// entry, not 16 GiB of RAM, and any host access to it faults (a stronger check than a poison
// pattern: a kernel that dereferences a device pointer on the host crashes at once).
//
// Backing is lazy and per page: back() makes the pages under [ptr, ptr + n) readable and
// writable, filling each page it backs for the first time with a fill byte, so a copy into or
// out of a block touches host memory for just those pages. drop() returns a block's pages to the
// system and makes it inaccessible again (on free); unreserve() gives the address range back.
//
//   ReservedAddressSpace space;
//   Result<void*> p = space.reserve(size_t{16} << 30, 256);  // 16 GiB, no RAM
//   space.back(*p + 4096, 48, 0xCD);                          // one page backed
//   space.drop(*p, size_t{16} << 30);                          // freed: no RAM, faults again
//   space.unreserve(*p, size_t{16} << 30);
//
// Errors: reserve() is MemoryAllocationFailed when the kernel refuses the mapping (the address
// space or the per-process mapping count is exhausted); back() is MemoryAllocationFailed when the
// pages cannot be made accessible. Callers keep the ranges they pass inside reserved blocks.
// Threading: not synchronized. The destructor does not unreserve: the owner releases its blocks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include <runtime_ext/core/result.h>

namespace devplan {

class ReservedAddressSpace {
 public:
  // The host page size (the granularity of reservations and of backing).
  static size_t page_size();

  // Reserves max(nbytes, 1) bytes, rounded up to whole pages, starting at a multiple of
  // `alignment` (a power of two). No host memory is committed.
  Result<void*> reserve(size_t nbytes, size_t alignment);
  // Gives back a range from reserve(nbytes, ...), its backed pages included.
  void unreserve(const void* block, size_t nbytes);

  // Backs the pages under [ptr, ptr + nbytes) that are not backed yet, filling each with `fill`.
  Error back(const void* ptr, size_t nbytes, uint8_t fill);
  // Drops every backed page of the block at `block` (nbytes from reserve()), making the whole
  // block inaccessible again.
  void drop(const void* block, size_t nbytes);

  // Copies [ptr, ptr + nbytes) into `out`; bytes on pages never backed read as `unbacked_fill`.
  void read(const void* ptr, size_t nbytes, uint8_t unbacked_fill, void* out) const;

  // Host bytes currently backed, over all blocks.
  size_t backed_bytes() const { return backed_bytes_; }

 private:
  // Whole-page span [begin, end) covering [ptr, ptr + nbytes).
  static std::pair<uintptr_t, uintptr_t> page_span(const void* ptr, size_t nbytes);
  // Forgets the backed pages inside [begin, end) (page-aligned).
  void forget(uintptr_t begin, uintptr_t end);

  std::map<uintptr_t, uintptr_t> backed_;  // backed page runs, begin -> end, disjoint, merged
  size_t backed_bytes_ = 0;
};

}  // namespace devplan
