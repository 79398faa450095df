// TrackingDeviceAllocator: a simulated DeviceAllocator whose "device memory" is host memory and
// which keeps a ledger of every allocation, records misuse instead of crashing, injects faults
// and simulates per-device capacity. It is the allocator the harness, the property tests and
// the leak-checked test fixture install for CUDA.
//
//   TrackingDeviceAllocator cuda;                  // serves DeviceType::CUDA, indices 0..127
//   ScopedDeviceAllocator scoped(&cuda);           // install on the global registry
//   DEVPLAN_RETURN_IF_ERROR(cuda.set_capacity(0, 1 << 20));   // cuda:0 holds 1 MiB
//   cuda.fail_allocation_at(3);                    // the 3rd allocate() call fails
//   {
//     ScopedAllocationOwner owner("forward/buffer 1");
//     auto buffer = DeviceMemoryBuffer::create(48, DeviceType::CUDA, 0);
//     ...
//   }
//   for (const std::string& line : cuda.leak_report_lines()) std::cerr << line << "\n";
//   EXPECT_FALSE(cuda.has_misuse()) << cuda.misuse_report();
//
// Sequence numbers. Every allocate() call, whether it succeeds or fails, takes the next
// sequence number (1-based, per allocator, restarted by reset()). A successful call becomes an
// AllocationRecord with that number, a failed one a FailedAllocation with that number; so the
// ledger's numbers have gaps exactly where calls failed, and "#7" in a report is the 7th call.
// Fault injection uses the same absolute numbers: fail_allocation_at(N) fails the N-th call.
//
// Report formats (one line each, no trailing newline in the *_lines() forms):
//   leak:    "#7 cuda:0 48 B align 16 owner forward/buffer 1"   (owner "-" when none was set)
//   misuse:  "double free of #3 cuda:0 48 B owner forward/buffer 1"
//            (see MisuseKind for every kind's line).
//
// Memory. Each block is a separate host allocation of exactly the requested size at the
// requested alignment; new blocks are filled with kFreshPattern (0xCD) and freed blocks with
// kFreedPattern (0xDD). A freed block is kept, poisoned, in a bounded quarantine (FIFO, limited
// by bytes and by count) before it goes back to the system, so its address is not reused while
// a stale pointer to it may still be around; copies through such a pointer are refused and
// recorded. In AddressSanitizer builds quarantined blocks are also poisoned for ASan, so a host
// kernel that dereferences a stale device pointer is reported by the sanitizer. A block that
// left the quarantine stays known as freed (double frees and stale copies are still caught)
// until this allocator hands out an overlapping address again, or until kRememberedReleases
// more blocks have left the quarantine after it (so the lookup maps stay bounded however long
// the allocator lives; past that window such a pointer reads as unknown, still misuse). The
// destructor frees every
// block it holds, live ones included (their records die with the allocator). The ledger grows
// by one record per successful allocation until reset().
//
// Misuse never crashes and never touches memory outside a live block: a bad free is recorded
// and ignored (a free on the wrong device index still frees the block); a bad copy is recorded,
// not performed, and returns InvalidArgument with the report line in its message.
//
// Threading: every public method is safe to call from many threads at once (one mutex).
// Ownership: the allocator owns all backing memory; it must outlive every buffer it allocated
// and every registration of it (see DeviceAllocatorRegistry).
#pragma once

#include <array>
#include <bitset>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <runtime_ext/core/device_allocator.h>

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
  Device device;               // device_type() and the index passed to the faulty call
  uint64_t allocation_seq = 0; // the allocation involved; 0 when none is known
  const void* ptr = nullptr;   // the device pointer passed to the faulty call
  std::string message;         // the report line (see MisuseKind)
};

// Which copy directions fail_copies() makes fail. A bit set.
enum class CopyDirection : uint8_t {
  None = 0,
  HostToDevice = 1,
  DeviceToHost = 2,
  Both = 3,
};

// Counters for one device index. Bytes are requested sizes (no alignment padding).
struct DeviceAllocationStats {
  uint64_t current_bytes = 0;
  uint64_t peak_bytes = 0;
  uint64_t total_bytes = 0;        // sum over all successful allocations
  uint64_t current_allocations = 0;
  uint64_t peak_allocations = 0;
  uint64_t total_allocations = 0;  // successful allocations
  uint64_t frees = 0;              // successful frees (a wrong-device free counts here)
  uint64_t failed_allocations = 0;
  uint64_t host_to_device_copies = 0;  // performed copies with at least one byte
  uint64_t host_to_device_bytes = 0;
  uint64_t device_to_host_copies = 0;
  uint64_t device_to_host_bytes = 0;
};

// The leak-report line of `record`: "#7 cuda:0 48 B align 16 owner forward/buffer 1".
std::string format_allocation(const AllocationRecord& record);

class TrackingDeviceAllocator : public DeviceAllocator {
 public:
  static constexpr uint8_t kFreshPattern = 0xCD;  // fills every new block
  static constexpr uint8_t kFreedPattern = 0xDD;  // fills every quarantined block
  static constexpr size_t kDefaultQuarantineBytes = size_t{64} << 20;
  static constexpr size_t kDefaultQuarantineBlocks = 1024;
  // How many released blocks (out of the quarantine) stay known as freed.
  static constexpr size_t kRememberedReleases = 4096;
  // Larger alignments are InvalidArgument (a GPU allocator gives 256; this is generous).
  static constexpr size_t kMaxAlignment = size_t{1} << 24;
  // Default limit on one allocation's size, so that a corrupt size cannot exhaust the host.
  static constexpr uint64_t kDefaultMaxAllocationBytes = uint64_t{1} << 32;
  static constexpr int kNumSimulatedIndices = kMaxDeviceIndex + 1;

  // Serves `type` (CUDA by default); every index 0..127 exists until restricted.
  explicit TrackingDeviceAllocator(DeviceType type = DeviceType::CUDA);
  // Frees every block it still holds, live or quarantined.
  ~TrackingDeviceAllocator() override;
  TrackingDeviceAllocator(const TrackingDeviceAllocator&) = delete;
  TrackingDeviceAllocator& operator=(const TrackingDeviceAllocator&) = delete;

  // --- DeviceAllocator -----------------------------------------------------------------------

  // Returns a pointer aligned to `alignment` to `nbytes` of simulated memory on cuda:`index`
  // (a unique non-null pointer for 0 bytes), recorded in the ledger with the current owner.
  // Errors, in this order of checks (each also recorded as a FailedAllocation):
  //   InvalidArgument: alignment zero, not a power of two or above kMaxAlignment; negative
  //     index; an index that restrict_devices()/set_device_count() excluded.
  //   MemoryAllocationFailed: an injected fault (fail_allocation_at, fail_allocations_from,
  //     fail_allocations_on); capacity exceeded; nbytes above max_allocation_bytes(); the host
  //     could not provide the memory (always so above 1 TiB, which is never requested).
  Result<void*> allocate(size_t nbytes, DeviceIndex index,
                         size_t alignment = kDefaultAlignment) override;

  // Frees a block from allocate(). Never fails: null is ignored (as cudaFree(nullptr) is);
  // a double free, an unknown or interior pointer or a wrong index is recorded as misuse.
  void deallocate(void* ptr, DeviceIndex index) override;

  // Copies into a live block after checking that [dst, dst + nbytes) lies inside one live
  // block allocated on `index` and that `src` is not device memory. A zero-byte copy does
  // nothing and succeeds. Errors: InvalidArgument for a null host pointer or any misuse (then
  // recorded and nothing is copied); Internal for an injected copy fault (checked after misuse).
  Error copy_host_to_device(void* dst, const void* src, size_t nbytes,
                            DeviceIndex index) override;

  // The mirror of copy_host_to_device for reading [src, src + nbytes) out of a live block.
  Error copy_device_to_host(void* dst, const void* src, size_t nbytes,
                            DeviceIndex index) override;

  DeviceType device_type() const override { return type_; }

  // --- Fault injection and simulation settings (kept by reset()) ------------------------------

  // Makes the allocate() call with sequence number `seq` fail with MemoryAllocationFailed.
  // May be called for several numbers; 0 is ignored.
  void fail_allocation_at(uint64_t seq);
  // Makes every allocate() call with sequence number >= `seq` fail; 0 turns this off.
  void fail_allocations_from(uint64_t seq);
  // Makes every allocation on `index` fail. InvalidArgument for a negative index.
  Error fail_allocations_on(DeviceIndex index);
  // Makes copies in `directions` fail with Internal; CopyDirection::None turns this off.
  void fail_copies(CopyDirection directions);
  // Removes every fault set by the four functions above (capacities and devices stay).
  void clear_faults();

  // Limits live bytes on `index` to `bytes`: an allocation that would take live bytes above it
  // fails with MemoryAllocationFailed. InvalidArgument for a negative index.
  Error set_capacity(DeviceIndex index, uint64_t bytes);
  // Removes every capacity limit.
  void clear_capacities();

  // Only these indices exist; allocating on another is InvalidArgument. InvalidArgument (and
  // no change) when the list holds a negative index.
  Error restrict_devices(const std::vector<DeviceIndex>& indices);
  // Only indices 0..count-1 exist. InvalidArgument (and no change) unless 0 <= count <= 128.
  Error set_device_count(int count);
  // Every index 0..127 exists again (the default).
  void allow_all_devices();
  // True when allocate() accepts `index` (ignoring faults and capacity).
  bool is_device_available(DeviceIndex index) const;

  // Sets the quarantine's limits; blocks beyond them are released oldest first, at once.
  // (0, 0) disables the quarantine: freed blocks go back to the system immediately.
  void set_quarantine_limits(size_t max_bytes, size_t max_blocks);
  // Whether new blocks are filled with kFreshPattern and quarantined ones with kFreedPattern
  // (on by default). Runs that only load and unload, and read no device byte, may turn it off:
  // the fills are most of the cost of a large allocation.
  void set_fill_patterns(bool on);
  // Sets the largest size one allocation may have (default kDefaultMaxAllocationBytes).
  void set_max_allocation_bytes(uint64_t bytes);
  uint64_t max_allocation_bytes() const;

  // --- Ledger and reports ---------------------------------------------------------------------

  // Every successful allocation, in sequence order, live and freed.
  std::vector<AllocationRecord> ledger() const;
  // The successful allocations from the `first`-th (0-based) on: ledger() without copying the
  // start, for callers that look at one step at a time.
  std::vector<AllocationRecord> ledger_from(size_t first) const;
  // The number of successful allocations so far (ledger().size()).
  size_t ledger_size() const;
  // The live allocations, in sequence order.
  std::vector<AllocationRecord> live_allocations() const;
  // Every misuse, in the order it happened.
  std::vector<MisuseRecord> misuse() const;
  // Every failed allocate() call, in sequence order.
  std::vector<FailedAllocation> failed_allocations() const;
  // Counters for `index`; all zero for an index never used (or negative).
  DeviceAllocationStats stats(DeviceIndex index) const;
  // The number of allocate() calls so far (the last sequence number handed out).
  uint64_t allocate_calls() const;
  size_t live_count() const;
  bool has_leaks() const;
  bool has_misuse() const;

  // One format_allocation() line per live allocation, in sequence order.
  std::vector<std::string> leak_report_lines() const;
  // One line per misuse record (its message), in order.
  std::vector<std::string> misuse_report_lines() const;
  // The lines above, each followed by '\n'; "" when there are none.
  std::string leak_report() const;
  std::string misuse_report() const;

  // Reads `nbytes` at `ptr` into `out` from a live or quarantined block, bypassing the misuse
  // checks and recording nothing: lets a test see the poison pattern of a freed block.
  // NotFound when `ptr` is not inside a block whose memory is still held; InvalidArgument when
  // the range runs past the block's end or `out` is null with nbytes > 0.
  Error peek(const void* ptr, size_t nbytes, void* out) const;
  // True when `ptr` is the start of a freed block still held in the quarantine.
  bool is_quarantined(const void* ptr) const;

  // Forgets all recorded state: releases the quarantine, clears the ledger, misuse, failed
  // allocations and statistics, and restarts sequence numbers at 1. Fault, capacity, device and
  // quarantine settings are kept. InvalidState, changing nothing, while any allocation is live
  // (their owners would later free pointers the allocator no longer knows).
  Error reset();

 private:
  struct Block {
    AllocationRecord record;
    bool quarantined = false;  // freed, memory still held
    bool released = false;     // freed, memory returned to the system
  };

  // Bytes a block covers in the address maps (at least 1, so zero-byte blocks count).
  static uintptr_t footprint(const Block& block);
  // The block of `map` whose footprint contains `addr`, or nullptr.
  const Block* find_containing(const std::map<uintptr_t, size_t>& map, uintptr_t addr) const;
  // A live or quarantined block overlapping [start, start + nbytes), or nullptr.
  const Block* find_overlapping_held(uintptr_t start, size_t nbytes) const;
  Result<void*> fail_allocation(uint64_t seq, size_t nbytes, DeviceIndex index, size_t alignment,
                                const std::string& owner, Error error);
  void record_misuse(MisuseKind kind, DeviceIndex index, const Block* block, const void* ptr,
                     std::string message);
  // Checks one copy (caller holds mu_); records and returns the misuse, if any.
  Error check_copy(const char* method, bool to_device, const void* device_ptr,
                   const void* host_ptr, size_t nbytes, DeviceIndex index);
  // Poisons a just-freed block and queues it, releasing the oldest beyond the limits.
  void quarantine(size_t block_index);
  void release_memory(Block& block);
  void remember_release(size_t block_index);
  // Drops freed_ entries (of released blocks) that overlap a new block at [start, end).
  void forget_released_overlapping(uintptr_t start, uintptr_t end);

  const DeviceType type_;
  mutable std::mutex mu_;

  // All guarded by mu_.
  std::deque<Block> blocks_;                 // every successful allocation, in sequence order
  std::map<uintptr_t, size_t> live_;         // start address -> index in blocks_
  std::map<uintptr_t, size_t> freed_;        // start address -> index (quarantined or released)
  std::deque<size_t> quarantine_;            // indices in blocks_, oldest first
  std::deque<size_t> released_;              // released blocks still in freed_, oldest first
  size_t quarantine_bytes_ = 0;
  std::vector<MisuseRecord> misuse_;
  std::vector<FailedAllocation> failed_;
  std::array<DeviceAllocationStats, kNumSimulatedIndices> stats_{};
  uint64_t next_seq_ = 1;

  std::set<uint64_t> fail_at_;
  uint64_t fail_from_ = 0;
  std::bitset<kNumSimulatedIndices> fail_devices_;
  CopyDirection fail_copies_ = CopyDirection::None;
  std::array<uint64_t, kNumSimulatedIndices> capacity_;  // UINT64_MAX: unlimited
  std::bitset<kNumSimulatedIndices> available_;
  size_t quarantine_max_bytes_ = kDefaultQuarantineBytes;
  size_t quarantine_max_blocks_ = kDefaultQuarantineBlocks;
  uint64_t max_allocation_bytes_ = kDefaultMaxAllocationBytes;
  bool fill_patterns_ = true;
};

}  // namespace devplan
