// BlockStoreDeviceAllocator: the bottom of TrackingDeviceAllocator's stack. It holds every block:
// where its memory comes from, the fill patterns, and the quarantine freed blocks wait in. Each
// block is a separate allocation of exactly the requested size at the requested alignment, from
// one of three backings:
//
//   Host      host memory (the default): a simulated device.
//   Unbacked  an address range with no host memory behind it (see below): a simulated device.
//   Device    memory from an upstream DeviceAllocator, such as CudaAllocator: a real device. Set
//             for good by the constructor that takes the upstream.
//
//   BlockStoreDeviceAllocator host;                          // serves DeviceType::CUDA, any index
//   Result<void*> p = host.allocate(48, 0);                   // 48 bytes of 0xCD
//   CudaAllocator cuda(real_cuda_runtime());
//   BlockStoreDeviceAllocator gpu(DeviceType::CUDA, "gpu", &cuda);   // cudaMalloc'd blocks
//
// New blocks are filled with kFreshPattern; a freed block is filled with kFreedPattern and kept
// in a bounded quarantine (BlockQuarantine) before its memory goes back to the system (or to the
// upstream), so its address is not handed out again while a stale pointer may be around; the
// release listener hears of every block whose memory goes back (so that a ledger above knows
// which freed blocks are still held). Host blocks in the quarantine are also poisoned for
// AddressSanitizer. Device blocks are filled through the upstream's copies, so a real device
// holds the same bytes a simulated one would, and a program reading memory nobody wrote reads
// the same values on both.
//
// It checks nothing a ledger should: a copy is a plain copy (the caller guarantees both ranges),
// and a free of a pointer it did not hand out, or of a freed one, is ignored. Allocation errors:
// InvalidArgument for an alignment that is not a power of two; MemoryAllocationFailed when the
// host cannot provide the memory (always so above kHostAllocationLimit); with an upstream, the
// upstream's error, its code kept. A zero-byte request takes one byte from the upstream, so each
// block has a unique address as on the host.
//
// Unbacked blocks. Allocating 16 GiB costs no RAM and no fill, and any host access through the
// pointer faults. A copy into or out of such a block backs the pages it touches, lazily, filling
// each new page with kFreshPattern first, so the bytes read back are exactly what a host-backed
// block would hold. Freeing drops the pages and makes the range inaccessible again; the
// quarantine keeps the range reserved (it counts the host bytes a block holds, which for a freed
// unbacked block is none). peek() of a quarantined unbacked block reads kFreedPattern; of a
// never-copied page of a live one, kFreshPattern (as if filled). The backing of each host block
// is fixed when it is allocated; set_backing() applies to later blocks and is ignored with an
// upstream.
//
// The memory itself (backings, patterns, poisoning, copies) is BlockMemory's, shared with
// ShardBlockStore, the block store of a TrackingDeviceAllocator's shard; this store adds its own
// table of blocks (a PointerMap) and the quarantine.
//
// Threading: not synchronized (see DeviceAllocatorAdaptor). The destructor frees every block it
// holds, live ones included, without calling the listener. Ownership: the upstream must outlive
// this allocator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include <mocks/block_memory.h>
#include <mocks/block_quarantine.h>
#include <mocks/pointer_map.h>
#include <mocks/sized_device_allocator.h>

namespace devplan {

// DeviceBacking and device_backing_name() are in mocks/block_memory.h (included here).

class BlockStoreDeviceAllocator : public SizedDeviceAllocator {
 public:
  static constexpr uint8_t kFreshPattern = BlockMemory::kFreshPattern;  // fills every new block
  static constexpr uint8_t kFreedPattern = BlockMemory::kFreedPattern;  // every quarantined one
  static constexpr size_t kDefaultQuarantineBytes = size_t{64} << 20;
  static constexpr size_t kDefaultQuarantineBlocks = 1024;
  // Requests above this are refused without asking the host: a libstdc++ aligned new near
  // SIZE_MAX wraps its size, and AddressSanitizer aborts on sizes above 1 TiB.
  static constexpr uint64_t kHostAllocationLimit = BlockMemory::kHostAllocationLimit;

  using ReleaseListener = std::function<void(const void* ptr)>;

  // With an `upstream` (which serves `type`), every block comes from it (DeviceBacking::Device).
  explicit BlockStoreDeviceAllocator(DeviceType type = DeviceType::CUDA,
                                     std::string name = "BlockStoreDeviceAllocator",
                                     DeviceAllocator* upstream = nullptr);
  ~BlockStoreDeviceAllocator() override;
  BlockStoreDeviceAllocator(const BlockStoreDeviceAllocator&) = delete;
  BlockStoreDeviceAllocator& operator=(const BlockStoreDeviceAllocator&) = delete;

  Result<void*> allocate(size_t nbytes, DeviceIndex index,
                         size_t alignment = kDefaultAlignment) override;
  void deallocate(void* ptr, DeviceIndex index) override;
  void deallocate_sized(void* ptr, size_t nbytes, DeviceIndex index) override;
  std::optional<LiveBlock> find_live_block(const void* ptr) const override;
  Error copy_host_to_device(void* dst, const void* src, size_t nbytes, DeviceIndex index) override;
  Error copy_device_to_host(void* dst, const void* src, size_t nbytes, DeviceIndex index) override;
  DeviceType device_type() const override { return memory_.device_type(); }

  // Sets the quarantine's limits, releasing the oldest blocks beyond them at once.
  // (0, 0) disables the quarantine: freed blocks go back to the system immediately.
  void set_quarantine_limits(size_t max_bytes, size_t max_blocks);
  // Whether new and quarantined blocks are filled with the patterns (on by default).
  void set_fill_patterns(bool on) { memory_.set_fill_patterns(on); }
  // How blocks allocated from now on are backed (see the header comment); ignored with an
  // upstream, whose blocks are always Device.
  void set_backing(DeviceBacking backing) { memory_.set_backing(backing); }
  DeviceBacking backing() const { return memory_.backing(); }
  // Host bytes behind unbacked blocks that copies have backed (live and quarantined).
  size_t unbacked_backed_bytes() const { return memory_.unbacked_backed_bytes(); }
  // Called with a freed block's start each time its memory goes back to the system.
  void set_release_listener(ReleaseListener listener) { on_release_ = std::move(listener); }

  // True when `block_start` starts a block (live or quarantined) with no host memory behind it.
  bool is_unbacked(const void* block_start) const {
    return blocks_.find(block_start) != nullptr && memory_.is_unbacked(block_start);
  }
  // True when `ptr` is the start of a freed block still held in the quarantine.
  bool is_quarantined(const void* ptr) const;
  // Copies `nbytes` at `ptr` into `out` from the live or quarantined block starting at
  // `block_start`, unpoisoning it for the read. The caller checks the range.
  void read_held(const void* block_start, const void* ptr, size_t nbytes, void* out) const;
  // The allocator device blocks come from; nullptr for a simulated device.
  DeviceAllocator* upstream() const { return memory_.upstream(); }
  // Releases every quarantined block (the listener hears of each).
  void release_quarantine();

 private:
  struct HostBlock {
    size_t size = 0;
    size_t alignment = 0;
    DeviceIndex index = 0;
    bool quarantined = false;
  };

  void quarantine(const void* ptr, HostBlock& block);
  // Returns a freed block's memory to the system and tells the listener.
  void release(const void* ptr);

  BlockMemory memory_;
  PointerMap<HostBlock> blocks_;  // live and quarantined, by start
  BlockQuarantine quarantine_{kDefaultQuarantineBytes, kDefaultQuarantineBlocks};
  ReleaseListener on_release_;
};

}  // namespace devplan
