#include <mocks/tracking_ledger_reports.h>

#include <algorithm>
#include <cstdint>

#include <mocks/allocation_text.h>

namespace devplan {
namespace {

bool by_seq(const BlockRegistry::Block* a, const BlockRegistry::Block* b) {
  return a->seq < b->seq;
}

}  // namespace

std::vector<AllocationRecord> MergedLedger::records_from(size_t first) const {
  std::vector<AllocationRecord> records;
  if (all_.shards().size() == 1) {  // already in sequence order: no merge
    const BlockRegistry& blocks = all_.shards()[0]->ledger().blocks();
    if (first < blocks.size()) records.reserve(blocks.size() - first);
    for (size_t i = first; i < blocks.size(); ++i) records.push_back(blocks.at(i).record());
    return records;
  }
  std::vector<const BlockRegistry::Block*> merged;
  for (const TrackingShard* shard : all_.shards()) {
    const BlockRegistry& blocks = shard->ledger().blocks();
    for (size_t i = 0; i < blocks.size(); ++i) merged.push_back(&blocks.at(i));
  }
  std::sort(merged.begin(), merged.end(), by_seq);
  if (first < merged.size()) records.reserve(merged.size() - first);
  for (size_t i = first; i < merged.size(); ++i) records.push_back(merged[i]->record());
  return records;
}

size_t MergedLedger::size() const {
  size_t size = 0;
  for (const TrackingShard* shard : all_.shards()) size += shard->ledger().blocks().size();
  return size;
}

std::vector<AllocationRecord> MergedLedger::live() const {
  std::vector<const BlockRegistry::Block*> live;
  for (const TrackingShard* shard : all_.shards()) {
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

size_t MergedLedger::live_count() const {
  size_t count = 0;
  for (const TrackingShard* shard : all_.shards()) count += shard->ledger().blocks().live_count();
  return count;
}

std::vector<FailedAllocation> MergedLedger::failed() const {
  std::vector<FailedAllocation> failed;
  for (const TrackingShard* shard : all_.shards()) {
    const std::vector<FailedAllocation>& own = shard->ledger().failed_allocations();
    failed.insert(failed.end(), own.begin(), own.end());
  }
  std::stable_sort(
      failed.begin(), failed.end(),
      [](const FailedAllocation& a, const FailedAllocation& b) { return a.seq < b.seq; });
  return failed;
}

Error MergedLedger::check_nothing_live() const {
  std::vector<uint64_t> live;
  for (const TrackingShard* shard : all_.shards()) {
    for (const BlockRegistry::Block* block : shard->ledger().blocks().live_blocks()) {
      live.push_back(block->seq);
    }
  }
  if (live.empty()) return Error::success();
  std::sort(live.begin(), live.end());
  std::string list;
  for (uint64_t seq : live) {
    if (!list.empty()) list += ", ";
    list += "#" + std::to_string(seq);
  }
  return Error(ErrorCode::InvalidState,
               std::string(name_) + "::reset: " + std::to_string(live.size()) +
                   (live.size() == 1 ? " allocation is" : " allocations are") + " still live (" +
                   list + ")");
}

Error MergedLedger::peek(const void* ptr, size_t nbytes, void* out) const {
  const std::string prefix = std::string(name_) + "::peek: ";
  for (const TrackingShard* shard : all_.shards()) {
    // Blocks holding memory never overlap across shards: the first one found is the one.
    const BlockRegistry::Block* r = shard->ledger().find_held(ptr);
    if (r == nullptr) continue;
    const uintptr_t offset = reinterpret_cast<uintptr_t>(ptr) - reinterpret_cast<uintptr_t>(r->ptr);
    if (nbytes > r->size - offset) {
      return Error(ErrorCode::InvalidArgument,
                   prefix + std::to_string(nbytes) + " B at offset " + std::to_string(offset) +
                       " run past the end of " + describe_allocation(r->record()));
    }
    shard->store().read_held(*r, ptr, nbytes, out);
    return Error::success();
  }
  return Error(ErrorCode::NotFound,
               prefix + pointer_text(ptr) + " is not inside a live or quarantined block");
}

bool MergedLedger::is_quarantined(const void* ptr) const {
  for (const TrackingShard* shard : all_.shards()) {
    if (shard->store().is_quarantined(ptr)) return true;
  }
  return false;
}

size_t MergedLedger::unbacked_backed_bytes() const {
  size_t bytes = 0;
  for (const TrackingShard* shard : all_.shards()) bytes += shard->store().unbacked_backed_bytes();
  return bytes;
}

std::string describe_unbacked_pointer(const TrackingShardSet& shards, const void* ptr) {
  for (size_t slot = 0; slot < TrackingShardSet::kSlots; ++slot) {
    const TrackingShard* shard = shards.existing_at(slot);
    if (shard == nullptr) continue;
    std::unique_lock<std::mutex> lock(shard->mutex(), std::try_to_lock);
    if (!lock.owns_lock()) continue;
    const BlockRegistry::Block* r = shard->ledger().find_held(ptr);
    if (r == nullptr || !shard->store().is_unbacked(r->ptr)) continue;
    const uintptr_t offset = reinterpret_cast<uintptr_t>(ptr) - reinterpret_cast<uintptr_t>(r->ptr);
    return pointer_text(ptr) + ": byte " + std::to_string(offset) + " of " +
           format_allocation(r->record()) + (r->live ? "" : " (freed)");
  }
  return "";
}

std::vector<std::string> allocation_report_lines(const std::vector<AllocationRecord>& live) {
  std::vector<std::string> lines;
  lines.reserve(live.size());
  for (const AllocationRecord& record : live) lines.push_back(format_allocation(record));
  return lines;
}

std::vector<std::string> misuse_record_lines(const std::vector<MisuseRecord>& misuse) {
  std::vector<std::string> lines;
  lines.reserve(misuse.size());
  for (const MisuseRecord& record : misuse) lines.push_back(record.message);
  return lines;
}

std::string join_report_lines(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) {
    text += line;
    text += '\n';
  }
  return text;
}

}  // namespace devplan
