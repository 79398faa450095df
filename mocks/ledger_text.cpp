#include <mocks/ledger_text.h>

namespace devplan {

std::vector<std::string> ledger_report_lines(const TrackingDeviceAllocator& tracking) {
  const std::vector<AllocationRecord> done = tracking.ledger();
  const std::vector<FailedAllocation> failed = tracking.failed_allocations();
  std::vector<std::string> lines;
  lines.reserve(done.size() + failed.size());
  size_t d = 0;
  size_t f = 0;
  while (d < done.size() || f < failed.size()) {
    if (f == failed.size() || (d < done.size() && done[d].seq < failed[f].seq)) {
      const AllocationRecord& a = done[d++];
      lines.push_back(format_allocation(a) + (a.live ? "  LIVE" : "  freed"));
      continue;
    }
    const FailedAllocation& x = failed[f++];
    AllocationRecord as_record;
    as_record.seq = x.seq;
    as_record.device = x.device;
    as_record.size = x.size;
    as_record.alignment = x.alignment;
    as_record.owner = x.owner;
    lines.push_back(format_allocation(as_record) + "  FAILED " + error_code_name(x.code) + ": " +
                    x.reason);
  }
  return lines;
}

}  // namespace devplan
