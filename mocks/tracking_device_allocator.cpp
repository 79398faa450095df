#include <mocks/tracking_device_allocator.h>

#include <algorithm>
#include <utility>

#include <mocks/allocation_text.h>

namespace devplan {
namespace {

// Every layer speaks with the composition's name, as the allocator did before it was split.
const char* const kName = "TrackingDeviceAllocator";

std::string join_lines(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) {
    text += line;
    text += '\n';
  }
  return text;
}

bool by_seq(const BlockRegistry::Block* a, const BlockRegistry::Block* b) {
  return a->seq < b->seq;
}

}  // namespace

// Every existing shard, locked in slot order after shards_mu_ (so no shard is made meanwhile):
// the allocator as one consistent whole.
class TrackingDeviceAllocator::AllShards {
 public:
  explicit AllShards(const TrackingDeviceAllocator& allocator)
      : settings_lock_(allocator.shards_mu_) {
    for (const std::unique_ptr<TrackingShard>& shard : allocator.owned_shards_) {
      if (shard == nullptr) continue;
      shard->mutex().lock();
      shards_.push_back(shard.get());
      registries_.push_back(&shard->ledger().blocks());
    }
  }
  ~AllShards() {
    for (auto it = shards_.rbegin(); it != shards_.rend(); ++it) (*it)->mutex().unlock();
  }
  AllShards(const AllShards&) = delete;
  AllShards& operator=(const AllShards&) = delete;

  const std::vector<TrackingShard*>& shards() const { return shards_; }
  // Every shard's blocks as one set (valid while this object lives).
  BlockRegistrySet blocks() const {
    return BlockRegistrySet(registries_.data(), registries_.size());
  }

 private:
  std::lock_guard<std::mutex> settings_lock_;
  std::vector<TrackingShard*> shards_;
  std::vector<const BlockRegistry*> registries_;
};

TrackingDeviceAllocator::TrackingDeviceAllocator(DeviceType type) : type_(type) {
  settings_.capacity.fill(UINT64_MAX);
  settings_.available.set();
}

TrackingDeviceAllocator::TrackingDeviceAllocator(DeviceAllocator* upstream)
    : type_(upstream->device_type()), upstream_(upstream) {
  settings_.capacity.fill(UINT64_MAX);
  settings_.available.set();
  settings_.backing = DeviceBacking::Device;
}

// The shards go with owned_shards_: each host layer frees every block it still holds.
TrackingDeviceAllocator::~TrackingDeviceAllocator() = default;

size_t TrackingDeviceAllocator::slot_of(DeviceIndex index) {
  return index < 0 ? kNumSimulatedIndices : static_cast<size_t>(index);
}

TrackingShard* TrackingDeviceAllocator::existing_shard(DeviceIndex index) const {
  return shards_[slot_of(index)].load(std::memory_order_acquire);
}

TrackingShard& TrackingDeviceAllocator::shard_for(DeviceIndex index) {
  if (TrackingShard* shard = existing_shard(index)) return *shard;
  std::lock_guard<std::mutex> lock(shards_mu_);
  const size_t slot = slot_of(index);
  if (owned_shards_[slot] == nullptr) {
    auto shard = std::make_unique<TrackingShard>(type_, kName, &calls_, upstream_);
    apply_settings(*shard);
    shards_[slot].store(shard.get(), std::memory_order_release);
    owned_shards_[slot] = std::move(shard);
  }
  return *owned_shards_[slot];
}

void TrackingDeviceAllocator::apply_settings(TrackingShard& shard) const {
  const Settings& s = settings_;
  FailureInjectingDeviceAllocator& faults = shard.faults();
  faults.clear_faults();
  shard.limits().clear_capacities();
  for (uint64_t seq : s.fail_at) faults.fail_allocation_at(seq);
  faults.fail_allocations_from(s.fail_from);
  std::vector<DeviceIndex> available;
  for (int i = 0; i < kNumSimulatedIndices; ++i) {
    const DeviceIndex index = static_cast<DeviceIndex>(i);
    if (s.fail_on[i]) (void)faults.fail_allocations_on(index);
    if (s.available[i]) available.push_back(index);
    if (s.capacity[i] != UINT64_MAX) (void)shard.limits().set_capacity(index, s.capacity[i]);
  }
  faults.fail_copies(s.fail_copies);
  (void)shard.devices().restrict_devices(available);
  shard.limits().set_max_allocation_bytes(s.max_allocation_bytes);
  shard.host().set_quarantine_limits(s.quarantine_bytes, s.quarantine_blocks);
  shard.host().set_fill_patterns(s.fill_patterns);
  shard.host().set_backing(s.backing);
}

template <typename Change>
void TrackingDeviceAllocator::change_settings(Change&& change) {
  AllShards all(*this);
  change(settings_);
  for (TrackingShard* shard : all.shards()) apply_settings(*shard);
}

// --- DeviceAllocator ----------------------------------------------------------------------------

Result<void*> TrackingDeviceAllocator::allocate(size_t nbytes, DeviceIndex index,
                                                size_t alignment) {
  TrackingShard& shard = shard_for(index);
  std::lock_guard<std::mutex> lock(shard.mutex());
  return shard.ledger().allocate(nbytes, index, alignment);
}

void TrackingDeviceAllocator::deallocate(void* ptr, DeviceIndex index) {
  if (ptr == nullptr) return;
  if (TrackingShard* shard = existing_shard(index)) {
    std::lock_guard<std::mutex> lock(shard->mutex());
    if (shard->ledger().deallocate_if_live_on(ptr, index)) return;  // one shard's lock
  }
  deallocate_slow(ptr, index);
}

void TrackingDeviceAllocator::deallocate_slow(void* ptr, DeviceIndex index) {
  AllShards all(*this);
  const Device call_device(type_, index);
  for (TrackingShard* shard : all.shards()) {
    const BlockRegistry::Block* block = shard->ledger().blocks().live_at(ptr);
    if (block == nullptr) continue;
    const DeviceIndex own_index = block->device.index;
    if (own_index != index) record_misuse(wrong_device_free(*block, call_device), index, ptr);
    shard->ledger().deallocate(ptr, own_index);  // the block is freed anyway
    return;
  }
  record_misuse(classify_bad_free(all.blocks(), ptr, call_device), index, ptr);
}

Error TrackingDeviceAllocator::copy_host_to_device(void* dst, const void* src, size_t nbytes,
                                                   DeviceIndex index) {
  if (nbytes == 0) return Error::success();
  return copy(DeviceCopy{CopyDirection::HostToDevice, dst, src, nbytes, index});
}

Error TrackingDeviceAllocator::copy_device_to_host(void* dst, const void* src, size_t nbytes,
                                                   DeviceIndex index) {
  if (nbytes == 0) return Error::success();
  return copy(DeviceCopy{CopyDirection::DeviceToHost, dst, src, nbytes, index});
}

Error TrackingDeviceAllocator::copy(const DeviceCopy& c) {
  AllShards all(*this);  // the host range must overlap no device's blocks, whichever shard
  if (c.host_ptr() == nullptr) {
    const std::string device = Device(type_, c.index).to_string();
    const std::string bytes = std::to_string(c.nbytes) + " B";
    return Error(
        ErrorCode::InvalidArgument,
        std::string(kName) + "::" + c.method() + ": " +
            (c.to_device() ? "host source is null (" + bytes + " to " + device + ")"
                           : "host destination is null (" + bytes + " from " + device + ")"));
  }
  if (std::optional<DetectedMisuse> misuse = find_copy_misuse(all.blocks(), c, type_)) {
    Error refused(ErrorCode::InvalidArgument,
                  std::string(kName) + "::" + c.method() + ": " + misuse->line);
    record_misuse(std::move(*misuse), c.index, c.device_ptr());
    return refused;
  }
  // A good copy lies in a live block of its index's shard, which therefore exists.
  LedgerDeviceAllocator& ledger = owned_shards_[slot_of(c.index)]->ledger();
  return c.to_device() ? ledger.copy_host_to_device(c.dst, c.src, c.nbytes, c.index)
                       : ledger.copy_device_to_host(c.dst, c.src, c.nbytes, c.index);
}

// --- settings -----------------------------------------------------------------------------------

void TrackingDeviceAllocator::fail_allocation_at(uint64_t seq) {
  change_settings([&](Settings& s) {
    if (seq != 0) s.fail_at.insert(seq);
  });
}

void TrackingDeviceAllocator::fail_allocations_from(uint64_t seq) {
  change_settings([&](Settings& s) { s.fail_from = seq; });
}

Error TrackingDeviceAllocator::fail_allocations_on(DeviceIndex index) {
  if (index < 0) return negative_index_error(kName, "fail_allocations_on", Device(type_, index));
  change_settings([&](Settings& s) { s.fail_on.set(static_cast<size_t>(index)); });
  return Error::success();
}

void TrackingDeviceAllocator::fail_copies(CopyDirection directions) {
  change_settings([&](Settings& s) { s.fail_copies = directions; });
}

void TrackingDeviceAllocator::clear_faults() {
  change_settings([&](Settings& s) {
    s.fail_at.clear();
    s.fail_from = 0;
    s.fail_on.reset();
    s.fail_copies = CopyDirection::None;
  });
}

Error TrackingDeviceAllocator::set_capacity(DeviceIndex index, uint64_t bytes) {
  if (index < 0) return negative_index_error(kName, "set_capacity", Device(type_, index));
  change_settings([&](Settings& s) { s.capacity[static_cast<size_t>(index)] = bytes; });
  return Error::success();
}

void TrackingDeviceAllocator::clear_capacities() {
  change_settings([&](Settings& s) { s.capacity.fill(UINT64_MAX); });
}

Error TrackingDeviceAllocator::restrict_devices(const std::vector<DeviceIndex>& indices) {
  std::bitset<kNumSimulatedIndices> available;
  for (DeviceIndex index : indices) {
    if (index < 0) return negative_index_error(kName, "restrict_devices", Device(type_, index));
    available.set(static_cast<size_t>(index));
  }
  change_settings([&](Settings& s) { s.available = available; });
  return Error::success();
}

Error TrackingDeviceAllocator::set_device_count(int count) {
  if (count < 0 || count > kNumSimulatedIndices) {
    return Error(ErrorCode::InvalidArgument,
                 std::string(kName) + "::set_device_count: " + std::to_string(count) +
                     " devices requested; the count must be from 0 to " +
                     std::to_string(kNumSimulatedIndices));
  }
  change_settings([&](Settings& s) {
    s.available.reset();
    for (int i = 0; i < count; ++i) s.available.set(static_cast<size_t>(i));
  });
  return Error::success();
}

void TrackingDeviceAllocator::allow_all_devices() {
  change_settings([&](Settings& s) { s.available.set(); });
}

bool TrackingDeviceAllocator::is_device_available(DeviceIndex index) const {
  std::lock_guard<std::mutex> lock(shards_mu_);
  return index >= 0 && settings_.available[static_cast<size_t>(index)];
}

void TrackingDeviceAllocator::set_quarantine_limits(size_t max_bytes, size_t max_blocks) {
  change_settings([&](Settings& s) {
    s.quarantine_bytes = max_bytes;
    s.quarantine_blocks = max_blocks;
  });
}

void TrackingDeviceAllocator::set_fill_patterns(bool on) {
  change_settings([&](Settings& s) { s.fill_patterns = on; });
}

void TrackingDeviceAllocator::set_backing(DeviceBacking backing) {
  if (upstream_ != nullptr) return;
  change_settings([&](Settings& s) { s.backing = backing; });
}

DeviceBacking TrackingDeviceAllocator::backing() const {
  std::lock_guard<std::mutex> lock(shards_mu_);
  return settings_.backing;
}

size_t TrackingDeviceAllocator::unbacked_backed_bytes() const {
  AllShards all(*this);
  size_t bytes = 0;
  for (const TrackingShard* shard : all.shards()) bytes += shard->host().unbacked_backed_bytes();
  return bytes;
}

void TrackingDeviceAllocator::set_max_allocation_bytes(uint64_t bytes) {
  change_settings([&](Settings& s) { s.max_allocation_bytes = bytes; });
}

uint64_t TrackingDeviceAllocator::max_allocation_bytes() const {
  std::lock_guard<std::mutex> lock(shards_mu_);
  return settings_.max_allocation_bytes;
}

// --- ledger and reports -------------------------------------------------------------------------

std::vector<AllocationRecord> TrackingDeviceAllocator::ledger() const { return ledger_from(0); }

std::vector<AllocationRecord> TrackingDeviceAllocator::ledger_from(size_t first) const {
  AllShards all(*this);
  std::vector<AllocationRecord> records;
  if (all.shards().size() == 1) {  // already in sequence order: no merge
    const BlockRegistry& blocks = all.shards()[0]->ledger().blocks();
    if (first < blocks.size()) records.reserve(blocks.size() - first);
    for (size_t i = first; i < blocks.size(); ++i) records.push_back(blocks.at(i).record());
    return records;
  }
  std::vector<const BlockRegistry::Block*> merged;
  for (const TrackingShard* shard : all.shards()) {
    const BlockRegistry& blocks = shard->ledger().blocks();
    for (size_t i = 0; i < blocks.size(); ++i) merged.push_back(&blocks.at(i));
  }
  std::sort(merged.begin(), merged.end(), by_seq);
  if (first < merged.size()) records.reserve(merged.size() - first);
  for (size_t i = first; i < merged.size(); ++i) records.push_back(merged[i]->record());
  return records;
}

size_t TrackingDeviceAllocator::ledger_size() const {
  AllShards all(*this);
  size_t size = 0;
  for (const TrackingShard* shard : all.shards()) size += shard->ledger().blocks().size();
  return size;
}

std::vector<AllocationRecord> TrackingDeviceAllocator::live_allocations() const {
  AllShards all(*this);
  std::vector<const BlockRegistry::Block*> live;
  for (const TrackingShard* shard : all.shards()) {
    for (const BlockRegistry::Block* block : shard->ledger().blocks().live_blocks()) {
      live.push_back(block);
    }
  }
  std::sort(live.begin(), live.end(), by_seq);
  std::vector<AllocationRecord> records;
  records.reserve(live.size());
  for (const BlockRegistry::Block* block : live) records.push_back(block->record());
  return records;
}

std::vector<MisuseRecord> TrackingDeviceAllocator::misuse() const {
  std::lock_guard<std::mutex> lock(shards_mu_);
  return misuse_;
}

std::vector<FailedAllocation> TrackingDeviceAllocator::failed_allocations() const {
  AllShards all(*this);
  std::vector<FailedAllocation> failed;
  for (const TrackingShard* shard : all.shards()) {
    const std::vector<FailedAllocation>& own = shard->ledger().failed_allocations();
    failed.insert(failed.end(), own.begin(), own.end());
  }
  std::stable_sort(
      failed.begin(), failed.end(),
      [](const FailedAllocation& a, const FailedAllocation& b) { return a.seq < b.seq; });
  return failed;
}

DeviceAllocationStats TrackingDeviceAllocator::stats(DeviceIndex index) const {
  TrackingShard* shard = index < 0 ? nullptr : existing_shard(index);
  if (shard == nullptr) return DeviceAllocationStats{};
  std::lock_guard<std::mutex> lock(shard->mutex());
  return shard->stats().stats(index);
}

uint64_t TrackingDeviceAllocator::allocate_calls() const {
  return calls_.load(std::memory_order_relaxed);
}

size_t TrackingDeviceAllocator::live_count() const {
  AllShards all(*this);
  size_t count = 0;
  for (const TrackingShard* shard : all.shards()) count += shard->ledger().blocks().live_count();
  return count;
}

bool TrackingDeviceAllocator::has_leaks() const { return live_count() != 0; }

bool TrackingDeviceAllocator::has_misuse() const {
  std::lock_guard<std::mutex> lock(shards_mu_);
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
  std::lock_guard<std::mutex> lock(shards_mu_);
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
  const std::string prefix = std::string(kName) + "::peek: ";
  if (out == nullptr) {
    return Error(ErrorCode::InvalidArgument,
                 prefix + "output is null (" + std::to_string(nbytes) + " B)");
  }
  AllShards all(*this);
  for (const TrackingShard* shard : all.shards()) {
    // Blocks holding memory never overlap across shards: the first one found is the one.
    const BlockRegistry::Block* r = shard->ledger().find_held(ptr);
    if (r == nullptr) continue;
    const uintptr_t offset = reinterpret_cast<uintptr_t>(ptr) - reinterpret_cast<uintptr_t>(r->ptr);
    if (nbytes > r->size - offset) {
      return Error(ErrorCode::InvalidArgument,
                   prefix + std::to_string(nbytes) + " B at offset " + std::to_string(offset) +
                       " run past the end of " + describe_allocation(r->record()));
    }
    shard->host().read_held(r->ptr, ptr, nbytes, out);
    return Error::success();
  }
  return Error(ErrorCode::NotFound,
               prefix + pointer_text(ptr) + " is not inside a live or quarantined block");
}

std::string TrackingDeviceAllocator::describe_unbacked_address(const void* ptr) const {
  for (const std::atomic<TrackingShard*>& slot : shards_) {
    const TrackingShard* shard = slot.load(std::memory_order_acquire);
    if (shard == nullptr) continue;
    std::unique_lock<std::mutex> lock(shard->mutex(), std::try_to_lock);
    if (!lock.owns_lock()) continue;
    const BlockRegistry::Block* r = shard->ledger().find_held(ptr);
    if (r == nullptr || !shard->host().is_unbacked(r->ptr)) continue;
    const uintptr_t offset = reinterpret_cast<uintptr_t>(ptr) - reinterpret_cast<uintptr_t>(r->ptr);
    return pointer_text(ptr) + ": byte " + std::to_string(offset) + " of " +
           format_allocation(r->record()) + (r->live ? "" : " (freed)");
  }
  return "";
}

bool TrackingDeviceAllocator::is_quarantined(const void* ptr) const {
  AllShards all(*this);
  for (const TrackingShard* shard : all.shards()) {
    if (shard->host().is_quarantined(ptr)) return true;
  }
  return false;
}

Error TrackingDeviceAllocator::reset() {
  AllShards all(*this);
  std::vector<uint64_t> live;
  for (const TrackingShard* shard : all.shards()) {
    for (const BlockRegistry::Block* block : shard->ledger().blocks().live_blocks()) {
      live.push_back(block->seq);
    }
  }
  if (!live.empty()) {
    std::sort(live.begin(), live.end());
    std::string list;
    for (uint64_t seq : live) {
      if (!list.empty()) list += ", ";
      list += "#" + std::to_string(seq);
    }
    return Error(ErrorCode::InvalidState,
                 std::string(kName) + "::reset: " + std::to_string(live.size()) +
                     (live.size() == 1 ? " allocation is" : " allocations are") + " still live (" +
                     list + ")");
  }
  for (TrackingShard* shard : all.shards()) {
    shard->host().release_quarantine();
    shard->ledger().clear();  // restarts the shared sequence too
    shard->stats().clear();
  }
  misuse_.clear();
  calls_.store(0, std::memory_order_relaxed);
  return Error::success();
}

void TrackingDeviceAllocator::record_misuse(DetectedMisuse misuse, DeviceIndex index,
                                            const void* ptr) {
  MisuseRecord record;
  record.kind = misuse.kind;
  record.device = Device(type_, index);
  record.allocation_seq = misuse.block != nullptr ? misuse.block->seq : 0;
  record.ptr = ptr;
  record.message = std::move(misuse.line);
  misuse_.push_back(std::move(record));
}

}  // namespace devplan
