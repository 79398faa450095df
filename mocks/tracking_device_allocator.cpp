#include <mocks/tracking_device_allocator.h>

#include <utility>

#include <mocks/allocation_text.h>
#include <mocks/tracking_ledger_reports.h>

namespace devplan {
namespace {

// Every layer speaks with the composition's name, as the allocator did before it was split.
const char* const kName = "TrackingDeviceAllocator";

}  // namespace

TrackingDeviceAllocator::TrackingDeviceAllocator(DeviceType type)
    : type_(type), shards_(type, kName, nullptr) {}

TrackingDeviceAllocator::TrackingDeviceAllocator(DeviceAllocator* upstream)
    : type_(upstream->device_type()), upstream_(upstream), shards_(type_, kName, upstream) {}

// The shards go with shards_: each host layer frees every block it still holds.
TrackingDeviceAllocator::~TrackingDeviceAllocator() = default;

// --- DeviceAllocator ----------------------------------------------------------------------------

Result<void*> TrackingDeviceAllocator::allocate(size_t nbytes, DeviceIndex index,
                                                size_t alignment) {
  TrackingShard& shard = shards_.shard_for(index);
  std::lock_guard<std::mutex> lock(shard.mutex());
  return shard.allocate(nbytes, index, alignment);
}

void TrackingDeviceAllocator::deallocate(void* ptr, DeviceIndex index) {
  if (ptr == nullptr) return;
  if (TrackingShard* shard = shards_.existing(index)) {
    std::lock_guard<std::mutex> lock(shard->mutex());
    if (shard->deallocate_if_live_on(ptr, index)) return;  // one shard's lock
  }
  deallocate_slow(ptr, index);
}

void TrackingDeviceAllocator::deallocate_slow(void* ptr, DeviceIndex index) {
  TrackingShardSet::Locked all(shards_);
  const Device call_device(type_, index);
  for (TrackingShard* shard : all.shards()) {
    const BlockRegistry::Block* block = shard->ledger().blocks().live_at(ptr);
    if (block == nullptr) continue;
    const DeviceIndex own_index = block->device.index;
    if (own_index != index) record_misuse(all, wrong_device_free(*block, call_device), index, ptr);
    shard->ledger().deallocate(ptr, own_index);  // the block is freed anyway
    return;
  }
  record_misuse(all, classify_bad_free(all.blocks(), ptr, call_device), index, ptr);
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
  // The host range must overlap no device's blocks, whichever shard: every lock.
  TrackingShardSet::Locked all(shards_);
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
    record_misuse(all, std::move(*misuse), c.index, c.device_ptr());
    return refused;
  }
  // A good copy lies in a live block of its index's shard, which therefore exists.
  LedgerDeviceAllocator& ledger = shards_.existing(c.index)->ledger();
  return c.to_device() ? ledger.copy_host_to_device(c.dst, c.src, c.nbytes, c.index)
                       : ledger.copy_device_to_host(c.dst, c.src, c.nbytes, c.index);
}

void TrackingDeviceAllocator::record_misuse(const TrackingShardSet::Locked& all,
                                            DetectedMisuse misuse, DeviceIndex index,
                                            const void* ptr) {
  MisuseRecord record;
  record.kind = misuse.kind;
  record.device = Device(type_, index);
  record.allocation_seq = misuse.block != nullptr ? misuse.block->seq : 0;
  record.ptr = ptr;
  record.message = std::move(misuse.line);
  shards_.record_misuse(all, std::move(record));
}

// --- settings -----------------------------------------------------------------------------------

void TrackingDeviceAllocator::fail_allocation_at(uint64_t seq) {
  shards_.change_settings([&](TrackingSettings& s) {
    if (seq != 0) s.fail_at.insert(seq);
  });
}

void TrackingDeviceAllocator::fail_allocations_from(uint64_t seq) {
  shards_.change_settings([&](TrackingSettings& s) { s.fail_from = seq; });
}

Error TrackingDeviceAllocator::fail_allocations_on(DeviceIndex index) {
  if (index < 0) return negative_index_error(kName, "fail_allocations_on", Device(type_, index));
  shards_.change_settings([&](TrackingSettings& s) { s.fail_on.set(static_cast<size_t>(index)); });
  return Error::success();
}

void TrackingDeviceAllocator::fail_copies(CopyDirection directions) {
  shards_.change_settings([&](TrackingSettings& s) { s.fail_copies = directions; });
}

void TrackingDeviceAllocator::clear_faults() {
  shards_.change_settings([&](TrackingSettings& s) {
    s.fail_at.clear();
    s.fail_from = 0;
    s.fail_on.reset();
    s.fail_copies = CopyDirection::None;
  });
}

Error TrackingDeviceAllocator::set_capacity(DeviceIndex index, uint64_t bytes) {
  if (index < 0) return negative_index_error(kName, "set_capacity", Device(type_, index));
  shards_.change_settings(
      [&](TrackingSettings& s) { s.capacity[static_cast<size_t>(index)] = bytes; });
  return Error::success();
}

void TrackingDeviceAllocator::clear_capacities() {
  shards_.change_settings(
      [&](TrackingSettings& s) { s.capacity.fill(TrackingSettings::kUnlimited); });
}

Error TrackingDeviceAllocator::restrict_devices(const std::vector<DeviceIndex>& indices) {
  std::bitset<kNumSimulatedIndices> available;
  for (DeviceIndex index : indices) {
    if (index < 0) return negative_index_error(kName, "restrict_devices", Device(type_, index));
    available.set(static_cast<size_t>(index));
  }
  shards_.change_settings([&](TrackingSettings& s) { s.available = available; });
  return Error::success();
}

Error TrackingDeviceAllocator::set_device_count(int count) {
  if (count < 0 || count > kNumSimulatedIndices) {
    return Error(ErrorCode::InvalidArgument,
                 std::string(kName) + "::set_device_count: " + std::to_string(count) +
                     " devices requested; the count must be from 0 to " +
                     std::to_string(kNumSimulatedIndices));
  }
  shards_.change_settings([&](TrackingSettings& s) {
    s.available.reset();
    for (int i = 0; i < count; ++i) s.available.set(static_cast<size_t>(i));
  });
  return Error::success();
}

void TrackingDeviceAllocator::allow_all_devices() {
  shards_.change_settings([&](TrackingSettings& s) { s.available.set(); });
}

bool TrackingDeviceAllocator::is_device_available(DeviceIndex index) const {
  return shards_.read([&](const TrackingSettings& s, const std::vector<MisuseRecord>&) {
    return index >= 0 && s.available[static_cast<size_t>(index)];
  });
}

void TrackingDeviceAllocator::set_quarantine_limits(size_t max_bytes, size_t max_blocks) {
  shards_.change_settings([&](TrackingSettings& s) {
    s.quarantine_bytes = max_bytes;
    s.quarantine_blocks = max_blocks;
  });
}

void TrackingDeviceAllocator::set_fill_patterns(bool on) {
  shards_.change_settings([&](TrackingSettings& s) { s.fill_patterns = on; });
}

void TrackingDeviceAllocator::set_fused_path(bool on) {
  shards_.change_settings([&](TrackingSettings& s) { s.fused_path = on; });
}

void TrackingDeviceAllocator::set_backing(DeviceBacking backing) {
  if (upstream_ != nullptr) return;
  shards_.change_settings([&](TrackingSettings& s) { s.backing = backing; });
}

DeviceBacking TrackingDeviceAllocator::backing() const {
  return shards_.read(
      [](const TrackingSettings& s, const std::vector<MisuseRecord>&) { return s.backing; });
}

size_t TrackingDeviceAllocator::unbacked_backed_bytes() const {
  TrackingShardSet::Locked all(shards_);
  return MergedLedger(all, kName).unbacked_backed_bytes();
}

void TrackingDeviceAllocator::set_max_allocation_bytes(uint64_t bytes) {
  shards_.change_settings([&](TrackingSettings& s) { s.max_allocation_bytes = bytes; });
}

uint64_t TrackingDeviceAllocator::max_allocation_bytes() const {
  return shards_.read([](const TrackingSettings& s, const std::vector<MisuseRecord>&) {
    return s.max_allocation_bytes;
  });
}

// --- ledger and reports -------------------------------------------------------------------------

std::vector<AllocationRecord> TrackingDeviceAllocator::ledger() const { return ledger_from(0); }

std::vector<AllocationRecord> TrackingDeviceAllocator::ledger_from(size_t first) const {
  TrackingShardSet::Locked all(shards_);
  return MergedLedger(all, kName).records_from(first);
}

size_t TrackingDeviceAllocator::ledger_size() const {
  TrackingShardSet::Locked all(shards_);
  return MergedLedger(all, kName).size();
}

std::vector<AllocationRecord> TrackingDeviceAllocator::live_allocations() const {
  TrackingShardSet::Locked all(shards_);
  return MergedLedger(all, kName).live();
}

std::vector<MisuseRecord> TrackingDeviceAllocator::misuse() const {
  return shards_.read(
      [](const TrackingSettings&, const std::vector<MisuseRecord>& misuse) { return misuse; });
}

std::vector<FailedAllocation> TrackingDeviceAllocator::failed_allocations() const {
  TrackingShardSet::Locked all(shards_);
  return MergedLedger(all, kName).failed();
}

DeviceAllocationStats TrackingDeviceAllocator::stats(DeviceIndex index) const {
  TrackingShard* shard = index < 0 ? nullptr : shards_.existing(index);
  if (shard == nullptr) return DeviceAllocationStats{};
  std::lock_guard<std::mutex> lock(shard->mutex());
  return shard->stats().stats(index);
}

uint64_t TrackingDeviceAllocator::allocate_calls() const { return shards_.calls(); }

size_t TrackingDeviceAllocator::live_count() const {
  TrackingShardSet::Locked all(shards_);
  return MergedLedger(all, kName).live_count();
}

bool TrackingDeviceAllocator::has_leaks() const { return live_count() != 0; }

bool TrackingDeviceAllocator::has_misuse() const {
  return shards_.read([](const TrackingSettings&, const std::vector<MisuseRecord>& misuse) {
    return !misuse.empty();
  });
}

std::vector<std::string> TrackingDeviceAllocator::leak_report_lines() const {
  return allocation_report_lines(live_allocations());
}

std::vector<std::string> TrackingDeviceAllocator::misuse_report_lines() const {
  return shards_.read([](const TrackingSettings&, const std::vector<MisuseRecord>& misuse) {
    return misuse_record_lines(misuse);
  });
}

std::string TrackingDeviceAllocator::leak_report() const {
  return join_report_lines(leak_report_lines());
}

std::string TrackingDeviceAllocator::misuse_report() const {
  return join_report_lines(misuse_report_lines());
}

Error TrackingDeviceAllocator::peek(const void* ptr, size_t nbytes, void* out) const {
  if (nbytes == 0) return Error::success();
  if (out == nullptr) {
    return Error(ErrorCode::InvalidArgument,
                 std::string(kName) + "::peek: output is null (" + std::to_string(nbytes) + " B)");
  }
  TrackingShardSet::Locked all(shards_);
  return MergedLedger(all, kName).peek(ptr, nbytes, out);
}

std::string TrackingDeviceAllocator::describe_unbacked_address(const void* ptr) const {
  return describe_unbacked_pointer(shards_, ptr);
}

bool TrackingDeviceAllocator::is_quarantined(const void* ptr) const {
  TrackingShardSet::Locked all(shards_);
  return MergedLedger(all, kName).is_quarantined(ptr);
}

Error TrackingDeviceAllocator::reset() {
  TrackingShardSet::Locked all(shards_);
  DEVPLAN_RETURN_IF_ERROR(MergedLedger(all, kName).check_nothing_live());
  for (TrackingShard* shard : all.shards()) {
    shard->store().release_quarantine();
    shard->ledger().clear();  // restarts the shared sequence too
    shard->stats().clear();
  }
  shards_.clear_misuse_and_calls(all);
  return Error::success();
}

}  // namespace devplan
