#include <mocks/tracking_device_allocator.h>

#include <runtime_ext/core/byte_count.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <new>
#include <utility>

#include <runtime_ext/core/allocation_owner.h>

// AddressSanitizer manual poisoning of quarantined blocks, when built with ASan.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DEVPLAN_MOCKS_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define DEVPLAN_MOCKS_ASAN 1
#endif
#if defined(DEVPLAN_MOCKS_ASAN)
#include <sanitizer/asan_interface.h>
#endif

namespace devplan {
namespace {

constexpr uint64_t kUnlimited = UINT64_MAX;

// Requests above this are refused without asking the host: a libstdc++ aligned new near
// SIZE_MAX wraps its size, and AddressSanitizer aborts on sizes above 1 TiB.
constexpr uint64_t kHostAllocationLimit = uint64_t{1} << 40;

void asan_poison(const void* ptr, size_t size) {
#if defined(DEVPLAN_MOCKS_ASAN)
  if (size > 0) __asan_poison_memory_region(ptr, size);
#else
  (void)ptr;
  (void)size;
#endif
}

void asan_unpoison(const void* ptr, size_t size) {
#if defined(DEVPLAN_MOCKS_ASAN)
  if (size > 0) __asan_unpoison_memory_region(ptr, size);
#else
  (void)ptr;
  (void)size;
#endif
}

std::string pointer_text(const void* ptr) {
  char text[2 + 2 * sizeof(uintptr_t) + 1];
  std::snprintf(text, sizeof(text), "0x%" PRIxPTR, reinterpret_cast<uintptr_t>(ptr));
  return text;
}

const std::string& owner_text(const std::string& owner) {
  static const std::string kNone = "-";
  return owner.empty() ? kNone : owner;
}

// "#3 cuda:0 48 B owner forward/buffer 1": an allocation as misuse lines name it.
std::string short_description(const AllocationRecord& r) {
  return "#" + std::to_string(r.seq) + " " + r.device.to_string() + " " + format_bytes(r.size) +
         " owner " + owner_text(r.owner);
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) {
    text += line;
    text += '\n';
  }
  return text;
}

bool has_direction(CopyDirection set, CopyDirection one) {
  return (static_cast<uint8_t>(set) & static_cast<uint8_t>(one)) != 0;
}

const char* const kAllocate = "TrackingDeviceAllocator::allocate: ";

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

TrackingDeviceAllocator::TrackingDeviceAllocator(DeviceType type) : type_(type) {
  capacity_.fill(kUnlimited);
  available_.set();
}

TrackingDeviceAllocator::~TrackingDeviceAllocator() {
  std::lock_guard<std::mutex> lock(mu_);
  for (Block& block : blocks_) {
    if (block.record.live || block.quarantined) release_memory(block);
  }
}

// --- allocation ---------------------------------------------------------------------------------

Result<void*> TrackingDeviceAllocator::allocate(size_t nbytes, DeviceIndex index,
                                                size_t alignment) {
  std::string owner = current_allocation_owner();
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t seq = next_seq_++;
  const Device device(type_, index);
  // Built only on the failure paths: a successful allocation formats no text.
  auto what = [&] { return std::to_string(nbytes) + " bytes on " + device.to_string(); };
  auto fail = [&](ErrorCode code, const std::string& message) {
    return fail_allocation(seq, nbytes, index, alignment, owner,
                           Error(code, kAllocate + message));
  };
  auto injected = [&](const std::string& which) {
    return fail(ErrorCode::MemoryAllocationFailed, "injected fault: allocation #" +
                                                       std::to_string(seq) + " of " + what() +
                                                       " fails (" + which + ")");
  };

  if (!is_power_of_two(alignment)) {
    return fail(ErrorCode::InvalidArgument, "alignment " + std::to_string(alignment) + " for " +
                                                what() + " is not a power of two");
  }
  if (alignment > kMaxAlignment) {
    return fail(ErrorCode::InvalidArgument,
                "alignment " + std::to_string(alignment) + " for " + what() +
                    " exceeds the simulated maximum " + std::to_string(kMaxAlignment));
  }
  if (index < 0) {
    return fail(ErrorCode::InvalidArgument,
                "device " + device.to_string() + " has a negative index");
  }
  if (!available_[index]) {
    std::string simulated;
    for (int i = 0; i < kNumSimulatedIndices; ++i) {
      if (!available_[i]) continue;
      if (!simulated.empty()) simulated += ", ";
      simulated += Device(type_, static_cast<DeviceIndex>(i)).to_string();
    }
    return fail(ErrorCode::InvalidArgument,
                "device " + device.to_string() + " is not simulated (simulated: " +
                    (simulated.empty() ? std::string("none") : simulated) + ")");
  }
  if (fail_at_.count(seq) != 0) return injected("fail_allocation_at " + std::to_string(seq));
  if (fail_from_ != 0 && seq >= fail_from_) {
    return injected("fail_allocations_from " + std::to_string(fail_from_));
  }
  if (fail_devices_[index]) return injected("fail_allocations_on " + device.to_string());

  DeviceAllocationStats& stats = stats_[index];
  const uint64_t capacity = capacity_[index];
  if (capacity != kUnlimited &&
      (nbytes > capacity || stats.current_bytes > capacity - nbytes)) {
    return fail(ErrorCode::MemoryAllocationFailed,
                "out of memory on " + device.to_string() + ": requested " +
                    std::to_string(nbytes) + " bytes with " +
                    std::to_string(stats.current_bytes) + " bytes live, capacity " +
                    std::to_string(capacity) + " bytes");
  }
  if (nbytes > max_allocation_bytes_) {
    return fail(ErrorCode::MemoryAllocationFailed,
                what() + " exceed the largest simulated allocation (" +
                    std::to_string(max_allocation_bytes_) + " bytes)");
  }
  if (nbytes > kHostAllocationLimit) {  // never ask the host (or a sanitizer) for absurd sizes
    return fail(ErrorCode::MemoryAllocationFailed,
                "host memory for " + what() + " could not be allocated");
  }

  void* ptr = ::operator new(nbytes, std::align_val_t(alignment), std::nothrow);
  if (ptr == nullptr) {
    return fail(ErrorCode::MemoryAllocationFailed,
                "host memory for " + what() + " could not be allocated");
  }
  if (nbytes > 0 && fill_patterns_) std::memset(ptr, kFreshPattern, nbytes);

  Block block;
  block.record.seq = seq;
  block.record.device = device;
  block.record.size = nbytes;
  block.record.alignment = alignment;
  block.record.owner = std::move(owner);
  block.record.ptr = ptr;
  block.record.live = true;
  const uintptr_t start = reinterpret_cast<uintptr_t>(ptr);
  forget_released_overlapping(start, start + footprint(block));
  blocks_.push_back(std::move(block));
  live_.emplace(start, blocks_.size() - 1);

  stats.current_bytes += nbytes;
  stats.peak_bytes = std::max(stats.peak_bytes, stats.current_bytes);
  stats.total_bytes += nbytes;
  stats.current_allocations += 1;
  stats.peak_allocations = std::max(stats.peak_allocations, stats.current_allocations);
  stats.total_allocations += 1;
  return ptr;
}

Result<void*> TrackingDeviceAllocator::fail_allocation(uint64_t seq, size_t nbytes,
                                                       DeviceIndex index, size_t alignment,
                                                       const std::string& owner, Error error) {
  FailedAllocation failed;
  failed.seq = seq;
  failed.device = Device(type_, index);
  failed.size = nbytes;
  failed.alignment = alignment;
  failed.owner = owner;
  failed.code = error.code();
  failed.reason = error.message();
  failed_.push_back(std::move(failed));
  if (index >= 0) stats_[index].failed_allocations += 1;
  return error;
}

// --- free ---------------------------------------------------------------------------------------

void TrackingDeviceAllocator::deallocate(void* ptr, DeviceIndex index) {
  if (ptr == nullptr) return;
  std::lock_guard<std::mutex> lock(mu_);
  const uintptr_t addr = reinterpret_cast<uintptr_t>(ptr);
  const Device call_device(type_, index);

  auto live = live_.find(addr);
  if (live != live_.end()) {
    const size_t block_index = live->second;
    Block& block = blocks_[block_index];
    if (block.record.device.index != index) {
      record_misuse(MisuseKind::WrongDeviceFree, index, &block, ptr,
                    "free on " + call_device.to_string() + " of " +
                        short_description(block.record));
    }
    live_.erase(live);
    block.record.live = false;
    DeviceAllocationStats& stats = stats_[block.record.device.index];
    stats.current_bytes -= block.record.size;
    stats.current_allocations -= 1;
    stats.frees += 1;
    freed_[addr] = block_index;
    quarantine(block_index);
    return;
  }

  auto freed = freed_.find(addr);
  if (freed != freed_.end()) {
    const Block& block = blocks_[freed->second];
    record_misuse(MisuseKind::DoubleFree, index, &block, ptr,
                  "double free of " + short_description(block.record));
    return;
  }

  const Block* inside = find_containing(live_, addr);
  const char* state = "";
  if (inside == nullptr) {
    inside = find_containing(freed_, addr);
    state = "freed ";
  }
  if (inside != nullptr) {
    const uintptr_t offset = addr - reinterpret_cast<uintptr_t>(inside->record.ptr);
    record_misuse(MisuseKind::UnknownPointer, index, inside, ptr,
                  "free of interior pointer " + pointer_text(ptr) + " (offset " +
                      std::to_string(offset) + ") of " + state +
                      short_description(inside->record));
    return;
  }
  record_misuse(MisuseKind::UnknownPointer, index, nullptr, ptr,
                "free of unknown pointer " + pointer_text(ptr) + " on " +
                    call_device.to_string());
}

void TrackingDeviceAllocator::quarantine(size_t block_index) {
  Block& block = blocks_[block_index];
  const size_t size = block.record.size;
  if (quarantine_max_blocks_ == 0 || size > quarantine_max_bytes_) {
    release_memory(block);
    remember_release(block_index);
    return;
  }
  void* ptr = const_cast<void*>(block.record.ptr);
  if (size > 0 && fill_patterns_) std::memset(ptr, kFreedPattern, size);
  asan_poison(ptr, size);
  block.quarantined = true;
  quarantine_.push_back(block_index);
  quarantine_bytes_ += size;
  while (quarantine_.size() > quarantine_max_blocks_ || quarantine_bytes_ > quarantine_max_bytes_) {
    const size_t oldest_index = quarantine_.front();
    Block& oldest = blocks_[oldest_index];
    quarantine_.pop_front();
    quarantine_bytes_ -= oldest.record.size;
    release_memory(oldest);
    remember_release(oldest_index);
  }
}

void TrackingDeviceAllocator::release_memory(Block& block) {
  void* ptr = const_cast<void*>(block.record.ptr);
  asan_unpoison(ptr, block.record.size);
  ::operator delete(ptr, std::align_val_t(block.record.alignment));
  block.quarantined = false;
  block.released = true;
}

void TrackingDeviceAllocator::remember_release(size_t block_index) {
  // A bounded window of released blocks stays known as freed; the oldest beyond it is forgotten.
  released_.push_back(block_index);
  while (released_.size() > kRememberedReleases) {
    const size_t oldest = released_.front();
    released_.pop_front();
    auto it = freed_.find(reinterpret_cast<uintptr_t>(blocks_[oldest].record.ptr));
    if (it != freed_.end() && it->second == oldest) freed_.erase(it);
  }
}

void TrackingDeviceAllocator::forget_released_overlapping(uintptr_t start, uintptr_t end) {
  // Entries of live_ and freed_ never overlap one another (see the invariant in
  // find_containing), so the entries overlapping [start, end) are consecutive and end before
  // the first entry starting at or after `end`.
  auto it = freed_.lower_bound(end);
  while (it != freed_.begin()) {
    auto prev = std::prev(it);
    if (prev->first + footprint(blocks_[prev->second]) <= start) break;
    it = freed_.erase(prev);
  }
}

uintptr_t TrackingDeviceAllocator::footprint(const Block& block) {
  return block.record.size == 0 ? 1 : static_cast<uintptr_t>(block.record.size);
}

// Invariant: the footprints of all entries of live_ and freed_ are pairwise disjoint. Live and
// quarantined blocks are distinct host allocations; a released block's entry is removed as soon
// as a new block overlaps it (forget_released_overlapping). So the block containing an address
// is the last one starting at or before it.
const TrackingDeviceAllocator::Block* TrackingDeviceAllocator::find_containing(
    const std::map<uintptr_t, size_t>& map, uintptr_t addr) const {
  auto it = map.upper_bound(addr);
  if (it == map.begin()) return nullptr;
  --it;
  const Block& block = blocks_[it->second];
  if (addr - it->first >= footprint(block)) return nullptr;
  return &block;
}

const TrackingDeviceAllocator::Block* TrackingDeviceAllocator::find_overlapping_held(
    uintptr_t start, size_t nbytes) const {
  const uintptr_t end = nbytes > UINTPTR_MAX - start ? UINTPTR_MAX : start + nbytes;
  for (const auto* map : {&live_, &freed_}) {
    auto it = map->lower_bound(end);
    while (it != map->begin()) {
      --it;
      const Block& block = blocks_[it->second];
      if (it->first + footprint(block) <= start) break;
      if (block.record.live || block.quarantined) return &block;
    }
  }
  return nullptr;
}

// --- copies -------------------------------------------------------------------------------------

Error TrackingDeviceAllocator::copy_host_to_device(void* dst, const void* src, size_t nbytes,
                                                   DeviceIndex index) {
  if (nbytes == 0) return Error::success();
  static const char* const kMethod = "copy_host_to_device";
  const Device device(type_, index);
  if (src == nullptr) {
    return Error(ErrorCode::InvalidArgument,
                 std::string("TrackingDeviceAllocator::") + kMethod + ": host source is null (" +
                     std::to_string(nbytes) + " B to " + device.to_string() + ")");
  }
  std::lock_guard<std::mutex> lock(mu_);
  DEVPLAN_RETURN_IF_ERROR(check_copy(kMethod, /*to_device=*/true, dst, src, nbytes, index));
  if (has_direction(fail_copies_, CopyDirection::HostToDevice)) {
    return Error(ErrorCode::Internal, std::string("TrackingDeviceAllocator::") + kMethod +
                                          ": injected fault: copy of " + std::to_string(nbytes) +
                                          " B to " + device.to_string() +
                                          " fails (fail_copies)");
  }
  std::memcpy(dst, src, nbytes);
  DeviceAllocationStats& stats = stats_[index];
  stats.host_to_device_copies += 1;
  stats.host_to_device_bytes += nbytes;
  return Error::success();
}

Error TrackingDeviceAllocator::copy_device_to_host(void* dst, const void* src, size_t nbytes,
                                                   DeviceIndex index) {
  if (nbytes == 0) return Error::success();
  static const char* const kMethod = "copy_device_to_host";
  const Device device(type_, index);
  if (dst == nullptr) {
    return Error(ErrorCode::InvalidArgument,
                 std::string("TrackingDeviceAllocator::") + kMethod +
                     ": host destination is null (" + std::to_string(nbytes) + " B from " +
                     device.to_string() + ")");
  }
  std::lock_guard<std::mutex> lock(mu_);
  DEVPLAN_RETURN_IF_ERROR(check_copy(kMethod, /*to_device=*/false, src, dst, nbytes, index));
  if (has_direction(fail_copies_, CopyDirection::DeviceToHost)) {
    return Error(ErrorCode::Internal, std::string("TrackingDeviceAllocator::") + kMethod +
                                          ": injected fault: copy of " + std::to_string(nbytes) +
                                          " B from " + device.to_string() +
                                          " fails (fail_copies)");
  }
  std::memcpy(dst, src, nbytes);
  DeviceAllocationStats& stats = stats_[index];
  stats.device_to_host_copies += 1;
  stats.device_to_host_bytes += nbytes;
  return Error::success();
}

Error TrackingDeviceAllocator::check_copy(const char* method, bool to_device,
                                          const void* device_ptr, const void* host_ptr,
                                          size_t nbytes, DeviceIndex index) {
  const uintptr_t addr = reinterpret_cast<uintptr_t>(device_ptr);
  const std::string op = std::string(method) + " of " + std::to_string(nbytes) + " B";
  const char* const direction = to_device ? "into " : "from ";
  auto misuse = [&](MisuseKind kind, const Block* block, std::string line) {
    const Error error(ErrorCode::InvalidArgument,
                      std::string("TrackingDeviceAllocator::") + method + ": " + line);
    record_misuse(kind, index, block, device_ptr, std::move(line));
    return error;
  };

  if (const Block* block = find_containing(live_, addr)) {
    const AllocationRecord& r = block->record;
    const uintptr_t offset = addr - reinterpret_cast<uintptr_t>(r.ptr);
    const std::string at = " at offset " + std::to_string(offset);
    if (nbytes > r.size - offset) {
      return misuse(MisuseKind::CopyOutOfBounds, block,
                    op + at + " past the end of " + short_description(r));
    }
    if (r.device.index != index) {
      return misuse(MisuseKind::CopyWrongDevice, block,
                    std::string(method) + " on " + Device(type_, index).to_string() + " of " +
                        std::to_string(nbytes) + " B" + at + " " + direction +
                        short_description(r));
    }
  } else if (const Block* freed = find_containing(freed_, addr)) {
    const AllocationRecord& r = freed->record;
    const uintptr_t offset = addr - reinterpret_cast<uintptr_t>(r.ptr);
    return misuse(to_device ? MisuseKind::CopyToFreedMemory : MisuseKind::CopyFromFreedMemory,
                  freed,
                  op + " at offset " + std::to_string(offset) + " " + direction + "freed " +
                      short_description(r));
  } else {
    return misuse(MisuseKind::CopyUnknownPointer, nullptr,
                  op + (to_device ? " to" : " from") + " unknown pointer " +
                      pointer_text(device_ptr) + " on " + Device(type_, index).to_string());
  }

  const Block* host_block =
      find_overlapping_held(reinterpret_cast<uintptr_t>(host_ptr), nbytes);
  if (host_block != nullptr) {
    return misuse(MisuseKind::HostPointerInDeviceMemory, host_block,
                  std::string(method) + " with host " +
                      (to_device ? "source " : "destination ") + pointer_text(host_ptr) +
                      " overlapping " + (host_block->record.live ? "" : "freed ") +
                      short_description(host_block->record));
  }
  return Error::success();
}

void TrackingDeviceAllocator::record_misuse(MisuseKind kind, DeviceIndex index,
                                            const Block* block, const void* ptr,
                                            std::string message) {
  MisuseRecord record;
  record.kind = kind;
  record.device = Device(type_, index);
  record.allocation_seq = block != nullptr ? block->record.seq : 0;
  record.ptr = ptr;
  record.message = std::move(message);
  misuse_.push_back(std::move(record));
}

// --- settings -----------------------------------------------------------------------------------

void TrackingDeviceAllocator::fail_allocation_at(uint64_t seq) {
  if (seq == 0) return;
  std::lock_guard<std::mutex> lock(mu_);
  fail_at_.insert(seq);
}

void TrackingDeviceAllocator::fail_allocations_from(uint64_t seq) {
  std::lock_guard<std::mutex> lock(mu_);
  fail_from_ = seq;
}

Error TrackingDeviceAllocator::fail_allocations_on(DeviceIndex index) {
  if (index < 0) {
    return Error(ErrorCode::InvalidArgument,
                 "TrackingDeviceAllocator::fail_allocations_on: device " +
                     Device(type_, index).to_string() + " has a negative index");
  }
  std::lock_guard<std::mutex> lock(mu_);
  fail_devices_.set(index);
  return Error::success();
}

void TrackingDeviceAllocator::fail_copies(CopyDirection directions) {
  std::lock_guard<std::mutex> lock(mu_);
  fail_copies_ = directions;
}

void TrackingDeviceAllocator::clear_faults() {
  std::lock_guard<std::mutex> lock(mu_);
  fail_at_.clear();
  fail_from_ = 0;
  fail_devices_.reset();
  fail_copies_ = CopyDirection::None;
}

Error TrackingDeviceAllocator::set_capacity(DeviceIndex index, uint64_t bytes) {
  if (index < 0) {
    return Error(ErrorCode::InvalidArgument, "TrackingDeviceAllocator::set_capacity: device " +
                                                 Device(type_, index).to_string() +
                                                 " has a negative index");
  }
  std::lock_guard<std::mutex> lock(mu_);
  capacity_[index] = bytes;
  return Error::success();
}

void TrackingDeviceAllocator::clear_capacities() {
  std::lock_guard<std::mutex> lock(mu_);
  capacity_.fill(kUnlimited);
}

Error TrackingDeviceAllocator::restrict_devices(const std::vector<DeviceIndex>& indices) {
  std::bitset<kNumSimulatedIndices> available;
  for (DeviceIndex index : indices) {
    if (index < 0) {
      return Error(ErrorCode::InvalidArgument,
                   "TrackingDeviceAllocator::restrict_devices: device " +
                       Device(type_, index).to_string() + " has a negative index");
    }
    available.set(index);
  }
  std::lock_guard<std::mutex> lock(mu_);
  available_ = available;
  return Error::success();
}

Error TrackingDeviceAllocator::set_device_count(int count) {
  if (count < 0 || count > kNumSimulatedIndices) {
    return Error(ErrorCode::InvalidArgument,
                 "TrackingDeviceAllocator::set_device_count: " + std::to_string(count) +
                     " devices requested; the count must be from 0 to " +
                     std::to_string(kNumSimulatedIndices));
  }
  std::bitset<kNumSimulatedIndices> available;
  for (int i = 0; i < count; ++i) available.set(i);
  std::lock_guard<std::mutex> lock(mu_);
  available_ = available;
  return Error::success();
}

void TrackingDeviceAllocator::allow_all_devices() {
  std::lock_guard<std::mutex> lock(mu_);
  available_.set();
}

bool TrackingDeviceAllocator::is_device_available(DeviceIndex index) const {
  if (index < 0) return false;
  std::lock_guard<std::mutex> lock(mu_);
  return available_[index];
}

void TrackingDeviceAllocator::set_quarantine_limits(size_t max_bytes, size_t max_blocks) {
  std::lock_guard<std::mutex> lock(mu_);
  quarantine_max_bytes_ = max_bytes;
  quarantine_max_blocks_ = max_blocks;
  while (!quarantine_.empty() &&
         (quarantine_.size() > quarantine_max_blocks_ || quarantine_bytes_ > quarantine_max_bytes_)) {
    const size_t oldest_index = quarantine_.front();
    Block& oldest = blocks_[oldest_index];
    quarantine_.pop_front();
    quarantine_bytes_ -= oldest.record.size;
    release_memory(oldest);
    remember_release(oldest_index);
  }
}

void TrackingDeviceAllocator::set_fill_patterns(bool on) {
  std::lock_guard<std::mutex> lock(mu_);
  fill_patterns_ = on;
}

void TrackingDeviceAllocator::set_max_allocation_bytes(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  max_allocation_bytes_ = bytes;
}

uint64_t TrackingDeviceAllocator::max_allocation_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return max_allocation_bytes_;
}

// --- ledger and reports -------------------------------------------------------------------------

std::vector<AllocationRecord> TrackingDeviceAllocator::ledger() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<AllocationRecord> records;
  records.reserve(blocks_.size());
  for (const Block& block : blocks_) records.push_back(block.record);
  return records;
}

std::vector<AllocationRecord> TrackingDeviceAllocator::ledger_from(size_t first) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<AllocationRecord> records;
  for (size_t i = first; i < blocks_.size(); ++i) records.push_back(blocks_[i].record);
  return records;
}

size_t TrackingDeviceAllocator::ledger_size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return blocks_.size();
}

std::vector<AllocationRecord> TrackingDeviceAllocator::live_allocations() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<size_t> indices;
  indices.reserve(live_.size());
  for (const auto& entry : live_) indices.push_back(entry.second);
  std::sort(indices.begin(), indices.end());  // blocks_ is in sequence order
  std::vector<AllocationRecord> records;
  records.reserve(indices.size());
  for (size_t i : indices) records.push_back(blocks_[i].record);
  return records;
}

std::vector<MisuseRecord> TrackingDeviceAllocator::misuse() const {
  std::lock_guard<std::mutex> lock(mu_);
  return misuse_;
}

std::vector<FailedAllocation> TrackingDeviceAllocator::failed_allocations() const {
  std::lock_guard<std::mutex> lock(mu_);
  return failed_;
}

DeviceAllocationStats TrackingDeviceAllocator::stats(DeviceIndex index) const {
  if (index < 0) return DeviceAllocationStats{};
  std::lock_guard<std::mutex> lock(mu_);
  return stats_[index];
}

uint64_t TrackingDeviceAllocator::allocate_calls() const {
  std::lock_guard<std::mutex> lock(mu_);
  return next_seq_ - 1;
}

size_t TrackingDeviceAllocator::live_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return live_.size();
}

bool TrackingDeviceAllocator::has_leaks() const {
  std::lock_guard<std::mutex> lock(mu_);
  return !live_.empty();
}

bool TrackingDeviceAllocator::has_misuse() const {
  std::lock_guard<std::mutex> lock(mu_);
  return !misuse_.empty();
}

std::vector<std::string> TrackingDeviceAllocator::leak_report_lines() const {
  std::vector<std::string> lines;
  for (const AllocationRecord& record : live_allocations()) {
    lines.push_back(format_allocation(record));
  }
  return lines;
}

std::vector<std::string> TrackingDeviceAllocator::misuse_report_lines() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> lines;
  lines.reserve(misuse_.size());
  for (const MisuseRecord& record : misuse_) lines.push_back(record.message);
  return lines;
}

std::string TrackingDeviceAllocator::leak_report() const { return join_lines(leak_report_lines()); }

std::string TrackingDeviceAllocator::misuse_report() const {
  return join_lines(misuse_report_lines());
}

Error TrackingDeviceAllocator::peek(const void* ptr, size_t nbytes, void* out) const {
  if (nbytes == 0) return Error::success();
  if (out == nullptr) {
    return Error(ErrorCode::InvalidArgument, "TrackingDeviceAllocator::peek: output is null (" +
                                                 std::to_string(nbytes) + " B)");
  }
  std::lock_guard<std::mutex> lock(mu_);
  const uintptr_t addr = reinterpret_cast<uintptr_t>(ptr);
  const Block* block = find_containing(live_, addr);
  if (block == nullptr) {
    block = find_containing(freed_, addr);
    if (block != nullptr && !block->quarantined) block = nullptr;
  }
  if (block == nullptr) {
    return Error(ErrorCode::NotFound, "TrackingDeviceAllocator::peek: " + pointer_text(ptr) +
                                          " is not inside a live or quarantined block");
  }
  const AllocationRecord& r = block->record;
  const uintptr_t offset = addr - reinterpret_cast<uintptr_t>(r.ptr);
  if (nbytes > r.size - offset) {
    return Error(ErrorCode::InvalidArgument,
                 "TrackingDeviceAllocator::peek: " + std::to_string(nbytes) + " B at offset " +
                     std::to_string(offset) + " run past the end of " + short_description(r));
  }
  if (block->quarantined) asan_unpoison(r.ptr, r.size);
  std::memcpy(out, ptr, nbytes);
  if (block->quarantined) asan_poison(r.ptr, r.size);
  return Error::success();
}

bool TrackingDeviceAllocator::is_quarantined(const void* ptr) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = freed_.find(reinterpret_cast<uintptr_t>(ptr));
  return it != freed_.end() && blocks_[it->second].quarantined;
}

Error TrackingDeviceAllocator::reset() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!live_.empty()) {
    std::vector<size_t> indices;
    for (const auto& entry : live_) indices.push_back(entry.second);
    std::sort(indices.begin(), indices.end());
    std::string list;
    for (size_t i : indices) {
      if (!list.empty()) list += ", ";
      list += "#" + std::to_string(blocks_[i].record.seq);
    }
    return Error(ErrorCode::InvalidState,
                 "TrackingDeviceAllocator::reset: " + std::to_string(live_.size()) +
                     (live_.size() == 1 ? " allocation is" : " allocations are") +
                     " still live (" + list + ")");
  }
  for (size_t i : quarantine_) release_memory(blocks_[i]);
  quarantine_.clear();
  quarantine_bytes_ = 0;
  blocks_.clear();
  freed_.clear();
  released_.clear();
  misuse_.clear();
  failed_.clear();
  stats_.fill(DeviceAllocationStats{});
  next_seq_ = 1;
  return Error::success();
}

}  // namespace devplan
