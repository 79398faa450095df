#include <harness/output/simulate_output.h>

#include <harness/output/summary_line.h>
#include <harness/services/device_statistics.h>
#include <harness/values/exit_codes.h>
#include <runtime_ext/core/byte_count.h>

namespace devplan::harness {
namespace {

// "statistics:", then per device its bytes and allocations: current, peak and total.
void print_statistics(std::ostream& out, const SimulationResult& r) {
  const std::vector<DeviceStatistics> stats = device_statistics(r.events);
  out << "statistics:" << (stats.empty() ? " none" : "") << "\n";
  for (const DeviceStatistics& d : stats) {
    out << "  " << d.device.to_string() << ": bytes current " << format_bytes(d.bytes.current)
        << ", peak " << format_bytes(d.bytes.peak) << ", total " << format_bytes(d.bytes.total)
        << "; allocations current " << d.allocations.current << ", peak " << d.allocations.peak
        << ", total " << d.allocations.total << "\n";
  }
}

// Everything but the "result:" and summary lines.
void print_text(std::ostream& out, const std::string& file, const SimulationResult& r) {
  out << "program: " << file << "\n";
  out << "runtime: " << runtime_name(r.runtime) << "\n";
  out << "device memory: " << r.device_memory << "\n";
  if (!r.device_map.empty())
    out << "device map: " << r.device_map << " (the ledger names the planned devices)\n";
  for (const MethodOutcome& m : r.methods) {
    out << "method " << m.name << ": " << (m.status.ok() ? "loaded" : m.status.to_string());
    for (size_t i = 0; i < m.stand_ins.size(); ++i) {
      out << (i == 0 ? " with placeholders for " : ", ") << m.stand_ins[i];
    }
    out << (m.stand_ins.empty() ? "\n" : " (it cannot run here)\n");
    for (const BufferOutcome& b : m.buffers) {
      out << "  buffer " << b.index << ": " << format_bytes(b.size) << " on "
          << b.device.to_string() << (b.allocated ? ", allocated" : ", not allocated") << "\n";
    }
  }
  out << "device allocations: " << r.allocations.size() << "\n";
  for (const AllocationRecord& a : r.allocations) {
    out << "  " << format_allocation(a) << (a.live ? "  LIVE" : "  freed") << "\n";
  }
  out << "failed allocations: " << r.failed_allocations.size() << "\n";
  for (const FailedAllocation& f : r.failed_allocations) {
    out << "  #" << f.seq << " " << f.device.to_string() << " " << format_bytes(f.size) << " owner "
        << (f.owner.empty() ? "-" : f.owner) << ": " << f.reason << "\n";
  }
  print_statistics(out, r);
  out << "leaks: " << r.leaks.size() << "\n";
  for (const std::string& line : r.leak_lines) out << "  " << line << "\n";
  out << "misuse: " << r.misuse.size() << "\n";
  for (const MisuseRecord& m : r.misuse) out << "  " << m.message << "\n";
}

}  // namespace

void print_simulation_text(std::ostream& out, const std::string& file, const SimulationResult& r,
                           int code) {
  print_text(out, file, r);
  out << "result: "
      << (code == cli::kExitOk      ? "ok: every method loaded, every allocation freed"
          : code == cli::kExitError ? "load error reported cleanly, nothing leaked"
                                    : "FOUND leaks or misuse")
      << "\n";
  out << simulation_summary(r) << "\n";
}

std::vector<JunitCase> simulation_junit_cases(const std::string& file, const SimulationResult& r) {
  std::vector<JunitCase> cases;
  for (const MethodOutcome& m : r.methods) {
    cases.push_back({file, "load " + m.name, m.status.ok() ? "" : m.status.to_string(), 0});
  }
  std::string leaks, misuse;
  for (const std::string& line : r.leak_lines) leaks += "leak: " + line + "\n";
  for (const MisuseRecord& m : r.misuse) misuse += "misuse: " + m.message + "\n";
  cases.push_back({file, "no leaks", leaks, 0});
  cases.push_back({file, "no misuse", misuse, 0});
  return cases;
}

}  // namespace devplan::harness
