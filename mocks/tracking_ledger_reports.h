// The queries and reports of a TrackingDeviceAllocator's ledger: every shard's records merged
// into one ledger in sequence order (MergedLedger, read under TrackingShardSet::Locked), and the
// text of the leak and misuse reports.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <mocks/ledger_records.h>
#include <mocks/tracking_shard_set.h>
#include <runtime_ext/core/error.h>

namespace devplan {

class MergedLedger {
 public:
  // `name` starts error messages; `all` must outlive this object.
  MergedLedger(const TrackingShardSet::Locked& all, const char* name) : all_(all), name_(name) {}

  // The successful allocations from the `first`-th (0-based) on, in sequence order.
  std::vector<AllocationRecord> records_from(size_t first) const;
  size_t size() const;
  // The live allocations, in sequence order.
  std::vector<AllocationRecord> live() const;
  size_t live_count() const;
  // Every failed allocate() call, in sequence order.
  std::vector<FailedAllocation> failed() const;
  // InvalidState "<name>::reset: 2 allocations are still live (#1, #3)", or success.
  Error check_nothing_live() const;
  // TrackingDeviceAllocator::peek (see there).
  Error peek(const void* ptr, size_t nbytes, void* out) const;
  bool is_quarantined(const void* ptr) const;
  size_t unbacked_backed_bytes() const;

 private:
  const TrackingShardSet::Locked& all_;
  const char* const name_;
};

// "<ptr>: byte N of <format_allocation()>[ (freed)]" for a pointer inside an unbacked block of
// `shards`, else "". Never blocks: a shard whose lock is held is skipped.
std::string describe_unbacked_pointer(const TrackingShardSet& shards, const void* ptr);

// One format_allocation() line per record.
std::vector<std::string> allocation_report_lines(const std::vector<AllocationRecord>& live);
// One line per misuse record (its message).
std::vector<std::string> misuse_record_lines(const std::vector<MisuseRecord>& misuse);
// The lines, each followed by '\n'; "" when there are none.
std::string join_report_lines(const std::vector<std::string>& lines);

}  // namespace devplan
