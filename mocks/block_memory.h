// BlockMemory: the memory behind simulated or real device blocks, for the two block stores
// (BlockStoreDeviceAllocator, alone; ShardBlockStore, in a TrackingDeviceAllocator's shard): where
// a block's bytes come from (DeviceBacking), the fill patterns, AddressSanitizer poisoning, and
// copies and reads of the bytes. It keeps no table of its blocks, except the unbacked ones'
// ranges (copies into them need to find their block): the stores keep that table, and pass a
// block's size, alignment and index back in.
//
//   BlockMemory memory(DeviceType::CUDA, "BlockStoreDeviceAllocator", nullptr);
//   Result<void*> p = memory.allocate(48, 0, 16);        // 48 bytes of kFreshPattern
//   const size_t kept = memory.on_free(*p, 48);          // 48: a host block keeps its bytes
//   memory.poison_freed(*p, 48, 0);                      // kFreedPattern, poisoned for ASan
//   memory.release(*p, 48, 16, 0);                       // back to the system
//
// Why apart from the stores: both stores must treat memory exactly alike (the reports and the
// bytes a test peeks do not depend on which store a block is in), and they differ only in how
// they find a block.
//
// Threading: not synchronized. The destructor releases nothing: the stores release their blocks.
// Ownership: the upstream must outlive this object.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <new>
#include <string>

#include <mocks/asan_poisoning.h>
#include <mocks/reserved_address_space.h>
#include <runtime_ext/core/device_allocator.h>

namespace devplan {

// What stands behind a simulated device block.
enum class DeviceBacking {
  Host,      // a host allocation of the block's size, filled with the patterns
  Unbacked,  // a reserved address range; host pages only where copies touch it
  Device,    // memory from an upstream device allocator (a real device)
};

// "host", "unbacked" or "device".
const char* device_backing_name(DeviceBacking backing);

class BlockMemory {
 public:
  static constexpr uint8_t kFreshPattern = 0xCD;  // fills every new block
  static constexpr uint8_t kFreedPattern = 0xDD;  // fills every quarantined block
  // Requests above this are refused without asking the host: a libstdc++ aligned new near
  // SIZE_MAX wraps its size, and AddressSanitizer aborts on sizes above 1 TiB.
  static constexpr uint64_t kHostAllocationLimit = uint64_t{1} << 40;

  // `name` starts allocation errors ("<name>::allocate: ..."). With an `upstream` (which serves
  // `type`), every block comes from it (DeviceBacking::Device).
  BlockMemory(DeviceType type, std::string name, DeviceAllocator* upstream);
  BlockMemory(const BlockMemory&) = delete;
  BlockMemory& operator=(const BlockMemory&) = delete;

  // A new block of `nbytes` at `alignment` on `index`, filled with kFreshPattern when the fills
  // are on. Errors: InvalidArgument for an alignment that is not a power of two;
  // MemoryAllocationFailed when the host cannot provide the memory (always so above
  // kHostAllocationLimit); with an upstream, the upstream's error, its code kept.
  Result<void*> allocate(size_t nbytes, DeviceIndex index, size_t alignment);

  // allocate() for the common case, without an error to build: a host-backed block of `nbytes`
  // at `alignment` (a power of two), filled. nullptr when blocks are not host-backed now, or when
  // the host refuses (allocate() then says why).
  void* allocate_host(size_t nbytes, size_t alignment) {
    if (backing_ != DeviceBacking::Host || nbytes > kHostAllocationLimit) return nullptr;
    void* ptr = host_new(nbytes, alignment);
    if (ptr != nullptr && nbytes > 0 && fill_patterns_) std::memset(ptr, kFreshPattern, nbytes);
    return ptr;
  }

  // A block of `size` bytes starting at `ptr` was freed: an unbacked block's pages go back to the
  // system at once (the range stays reserved). Returns the host bytes the block keeps while it
  // waits in a quarantine: its size, or 0 for an unbacked block.
  size_t on_free(const void* ptr, size_t size) {
    if (unbacked_blocks_.empty() || !is_unbacked(ptr)) return size;
    reserved_.drop(ptr, size);
    return 0;
  }
  // Fills a freed block that a quarantine keeps with kFreedPattern (host and device blocks, when
  // the fills are on) and poisons a host block for AddressSanitizer.
  void poison_freed(void* ptr, size_t size, DeviceIndex index) {
    if (upstream_ != nullptr || !unbacked_blocks_.empty()) {
      poison_freed_elsewhere(ptr, size, index);
      return;
    }
    if (size > 0 && fill_patterns_) std::memset(ptr, kFreedPattern, size);
    asan_poison(ptr, size);
  }
  // Gives the memory of the block at `ptr` back: to the system, or to the upstream.
  void release(const void* ptr, size_t size, size_t alignment, DeviceIndex index) {
    if (upstream_ != nullptr || !unbacked_blocks_.empty()) {
      release_elsewhere(ptr, size, alignment, index);
      return;
    }
    asan_unpoison(ptr, size);
    host_delete(const_cast<void*>(ptr), alignment);
  }

  // Copies a caller checked into or out of a block (backing the touched pages of an unbacked one).
  Error copy_host_to_device(void* dst, const void* src, size_t nbytes, DeviceIndex index);
  Error copy_device_to_host(void* dst, const void* src, size_t nbytes, DeviceIndex index);
  // Copies `nbytes` at `ptr` into `out` from the block of `size` bytes at `block_start` on
  // `index`, live or (`freed`) quarantined, unpoisoning it for the read. The caller checks the
  // range.
  void read(const void* block_start, size_t size, DeviceIndex index, bool freed, const void* ptr,
            size_t nbytes, void* out) const;

  // True when `block_start` starts a block with no host memory behind it.
  bool is_unbacked(const void* block_start) const {
    return unbacked_blocks_.count(reinterpret_cast<uintptr_t>(block_start)) != 0;
  }
  // Host bytes behind unbacked blocks that copies have backed.
  size_t unbacked_backed_bytes() const { return reserved_.backed_bytes(); }

  void set_fill_patterns(bool on) { fill_patterns_ = on; }
  // How blocks allocated from now on are backed; ignored with an upstream (always Device).
  void set_backing(DeviceBacking backing) {
    if (upstream_ == nullptr) backing_ = backing;
  }
  DeviceBacking backing() const { return backing_; }
  DeviceAllocator* upstream() const { return upstream_; }
  DeviceType device_type() const { return type_; }
  const std::string& name() const { return name_; }

 private:
  // Every host block is an aligned operator new of exactly its size (ASan sees its bounds).
  static void* host_new(size_t nbytes, size_t alignment) {
    return ::operator new(nbytes, std::align_val_t(alignment), std::nothrow);
  }
  static void host_delete(void* ptr, size_t alignment) {
    ::operator delete(ptr, std::align_val_t(alignment));
  }

  // poison_freed() and release() when the block may not be host memory (the inline part is the
  // host case only: no upstream, no unbacked block).
  void poison_freed_elsewhere(void* ptr, size_t size, DeviceIndex index);
  void release_elsewhere(const void* ptr, size_t size, size_t alignment, DeviceIndex index);
  Error allocation_error(ErrorCode code, const std::string& message) const;
  // Fills [ptr, ptr + nbytes) with `pattern`, on the host or through the upstream.
  void fill(void* ptr, size_t nbytes, uint8_t pattern, DeviceIndex index);
  // Backs the pages a copy touches when `ptr` lies in an unbacked block.
  Error back_for_copy(const void* ptr, size_t nbytes);

  DeviceAllocator* const upstream_ = nullptr;  // with DeviceBacking::Device only
  const DeviceType type_;
  const std::string name_;
  bool fill_patterns_ = true;
  DeviceBacking backing_ = DeviceBacking::Host;
  ReservedAddressSpace reserved_;
  // Unbacked blocks' start -> size, ordered, so that a copy's interior pointer finds its block.
  std::map<uintptr_t, size_t> unbacked_blocks_;
};

}  // namespace devplan
