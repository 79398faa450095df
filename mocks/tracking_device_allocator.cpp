#include <mocks/tracking_device_allocator.h>

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

}  // namespace

TrackingDeviceAllocator::TrackingDeviceAllocator(DeviceType type)
    : host_(type, kName),
      limits_(&host_, kName),
      faults_(&limits_, &sequence_, kName),
      devices_(&faults_, kName),
      stats_(&devices_, kName),
      ledger_(&stats_, &sequence_, kName) {
  host_.set_release_listener([this](const void* ptr) { ledger_.memory_released(ptr); });
}

// The layers go innermost last: the host layer frees every block it still holds.
TrackingDeviceAllocator::~TrackingDeviceAllocator() = default;

// --- DeviceAllocator ----------------------------------------------------------------------------

Result<void*> TrackingDeviceAllocator::allocate(size_t nbytes, DeviceIndex index,
                                                size_t alignment) {
  std::lock_guard<std::mutex> lock(mu_);
  return ledger_.allocate(nbytes, index, alignment);
}

void TrackingDeviceAllocator::deallocate(void* ptr, DeviceIndex index) {
  if (ptr == nullptr) return;
  std::lock_guard<std::mutex> lock(mu_);
  ledger_.deallocate(ptr, index);
}

Error TrackingDeviceAllocator::copy_host_to_device(void* dst, const void* src, size_t nbytes,
                                                   DeviceIndex index) {
  if (nbytes == 0) return Error::success();
  std::lock_guard<std::mutex> lock(mu_);
  return ledger_.copy_host_to_device(dst, src, nbytes, index);
}

Error TrackingDeviceAllocator::copy_device_to_host(void* dst, const void* src, size_t nbytes,
                                                   DeviceIndex index) {
  if (nbytes == 0) return Error::success();
  std::lock_guard<std::mutex> lock(mu_);
  return ledger_.copy_device_to_host(dst, src, nbytes, index);
}

// --- settings -----------------------------------------------------------------------------------

void TrackingDeviceAllocator::fail_allocation_at(uint64_t seq) {
  std::lock_guard<std::mutex> lock(mu_);
  faults_.fail_allocation_at(seq);
}

void TrackingDeviceAllocator::fail_allocations_from(uint64_t seq) {
  std::lock_guard<std::mutex> lock(mu_);
  faults_.fail_allocations_from(seq);
}

Error TrackingDeviceAllocator::fail_allocations_on(DeviceIndex index) {
  std::lock_guard<std::mutex> lock(mu_);
  return faults_.fail_allocations_on(index);
}

void TrackingDeviceAllocator::fail_copies(CopyDirection directions) {
  std::lock_guard<std::mutex> lock(mu_);
  faults_.fail_copies(directions);
}

void TrackingDeviceAllocator::clear_faults() {
  std::lock_guard<std::mutex> lock(mu_);
  faults_.clear_faults();
}

Error TrackingDeviceAllocator::set_capacity(DeviceIndex index, uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  return limits_.set_capacity(index, bytes);
}

void TrackingDeviceAllocator::clear_capacities() {
  std::lock_guard<std::mutex> lock(mu_);
  limits_.clear_capacities();
}

Error TrackingDeviceAllocator::restrict_devices(const std::vector<DeviceIndex>& indices) {
  std::lock_guard<std::mutex> lock(mu_);
  return devices_.restrict_devices(indices);
}

Error TrackingDeviceAllocator::set_device_count(int count) {
  std::lock_guard<std::mutex> lock(mu_);
  return devices_.set_device_count(count);
}

void TrackingDeviceAllocator::allow_all_devices() {
  std::lock_guard<std::mutex> lock(mu_);
  devices_.allow_all_devices();
}

bool TrackingDeviceAllocator::is_device_available(DeviceIndex index) const {
  std::lock_guard<std::mutex> lock(mu_);
  return devices_.is_device_available(index);
}

void TrackingDeviceAllocator::set_quarantine_limits(size_t max_bytes, size_t max_blocks) {
  std::lock_guard<std::mutex> lock(mu_);
  host_.set_quarantine_limits(max_bytes, max_blocks);
}

void TrackingDeviceAllocator::set_fill_patterns(bool on) {
  std::lock_guard<std::mutex> lock(mu_);
  host_.set_fill_patterns(on);
}

void TrackingDeviceAllocator::set_backing(DeviceBacking backing) {
  std::lock_guard<std::mutex> lock(mu_);
  host_.set_backing(backing);
}

DeviceBacking TrackingDeviceAllocator::backing() const {
  std::lock_guard<std::mutex> lock(mu_);
  return host_.backing();
}

size_t TrackingDeviceAllocator::unbacked_backed_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return host_.unbacked_backed_bytes();
}

void TrackingDeviceAllocator::set_max_allocation_bytes(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  limits_.set_max_allocation_bytes(bytes);
}

uint64_t TrackingDeviceAllocator::max_allocation_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return limits_.max_allocation_bytes();
}

// --- ledger and reports -------------------------------------------------------------------------

std::vector<AllocationRecord> TrackingDeviceAllocator::ledger() const { return ledger_from(0); }

std::vector<AllocationRecord> TrackingDeviceAllocator::ledger_from(size_t first) const {
  std::lock_guard<std::mutex> lock(mu_);
  const BlockRegistry& blocks = ledger_.blocks();
  std::vector<AllocationRecord> records;
  if (first < blocks.size()) records.reserve(blocks.size() - first);
  for (size_t i = first; i < blocks.size(); ++i) records.push_back(blocks.at(i).record);
  return records;
}

size_t TrackingDeviceAllocator::ledger_size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return ledger_.blocks().size();
}

std::vector<AllocationRecord> TrackingDeviceAllocator::live_allocations() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<AllocationRecord> records;
  for (const BlockRegistry::Block* block : ledger_.blocks().live_blocks()) {
    records.push_back(block->record);
  }
  return records;
}

std::vector<MisuseRecord> TrackingDeviceAllocator::misuse() const {
  std::lock_guard<std::mutex> lock(mu_);
  return ledger_.misuse();
}

std::vector<FailedAllocation> TrackingDeviceAllocator::failed_allocations() const {
  std::lock_guard<std::mutex> lock(mu_);
  return ledger_.failed_allocations();
}

DeviceAllocationStats TrackingDeviceAllocator::stats(DeviceIndex index) const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_.stats(index);
}

uint64_t TrackingDeviceAllocator::allocate_calls() const {
  std::lock_guard<std::mutex> lock(mu_);
  return ledger_.allocate_calls();
}

size_t TrackingDeviceAllocator::live_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return ledger_.blocks().live_count();
}

bool TrackingDeviceAllocator::has_leaks() const { return live_count() != 0; }

bool TrackingDeviceAllocator::has_misuse() const {
  std::lock_guard<std::mutex> lock(mu_);
  return !ledger_.misuse().empty();
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
  lines.reserve(ledger_.misuse().size());
  for (const MisuseRecord& record : ledger_.misuse()) lines.push_back(record.message);
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
  std::lock_guard<std::mutex> lock(mu_);
  const AllocationRecord* r = ledger_.find_held(ptr);
  if (r == nullptr) {
    return Error(ErrorCode::NotFound,
                 prefix + pointer_text(ptr) + " is not inside a live or quarantined block");
  }
  const uintptr_t offset = reinterpret_cast<uintptr_t>(ptr) - reinterpret_cast<uintptr_t>(r->ptr);
  if (nbytes > r->size - offset) {
    return Error(ErrorCode::InvalidArgument, prefix + std::to_string(nbytes) + " B at offset " +
                                                 std::to_string(offset) + " run past the end of " +
                                                 describe_allocation(*r));
  }
  host_.read_held(r->ptr, ptr, nbytes, out);
  return Error::success();
}

bool TrackingDeviceAllocator::is_quarantined(const void* ptr) const {
  std::lock_guard<std::mutex> lock(mu_);
  return host_.is_quarantined(ptr);
}

Error TrackingDeviceAllocator::reset() {
  std::lock_guard<std::mutex> lock(mu_);
  DEVPLAN_RETURN_IF_ERROR(ledger_.check_nothing_live());
  host_.release_quarantine();
  ledger_.clear();
  stats_.clear();
  return Error::success();
}

}  // namespace devplan
