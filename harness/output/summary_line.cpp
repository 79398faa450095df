#include <harness/output/summary_line.h>

namespace devplan::harness {
namespace {

// "1 allocation", "2 allocations".
std::string count_of(uint64_t n, const char* singular, const char* plural) {
  return std::to_string(n) + " " + (n == 1 ? singular : plural);
}

std::string totals_text(uint64_t allocations, uint64_t frees) {
  return count_of(allocations, "allocation", "allocations") + ", " +
         count_of(frees, "free", "frees");
}

}  // namespace

std::string summary_line(const LedgerSummary& s) {
  std::string line = "SUMMARY: devplan: ";
  if (s.leaked_allocations > 0) {
    line += count_of(s.leaked_bytes, "byte", "bytes") + " leaked in " +
            count_of(s.leaked_allocations, "allocation", "allocations");
    if (s.misuse > 0) line += "; " + std::to_string(s.misuse) + " misuse";
    return line;
  }
  line += "no leaks, ";
  line += s.misuse > 0 ? std::to_string(s.misuse) + " misuse" : std::string("no misuse");
  return line + " (" + totals_text(s.allocations, s.frees) + ")";
}

LedgerSummary summarize_ledger(const SimulationResult& r) {
  LedgerSummary s;
  for (const AllocationRecord& a : r.allocations) {
    ++s.allocations;
    s.frees += a.live ? 0 : 1;
  }
  for (const AllocationRecord& a : r.leaks) {
    ++s.leaked_allocations;
    s.leaked_bytes += a.size;
  }
  s.misuse = r.misuse.size();
  return s;
}

std::string simulation_summary(const SimulationResult& r) {
  return summary_line(summarize_ledger(r));
}

std::string fuzz_summary_line(const CampaignResult& result, uint64_t seed,
                              const std::string& replay) {
  if (result.failure) {
    return "SUMMARY: devplan: fuzz case " + std::to_string(result.failure->case_index) +
           " failed (" + result.failure->finding.check + "), seed " + std::to_string(seed) +
           "; replay: " + replay;
  }
  return "SUMMARY: devplan: no leaks, no misuse (" +
         totals_text(result.totals.allocations, result.totals.frees) + " in " +
         count_of(result.cases, "case", "cases") + ")";
}

}  // namespace devplan::harness
