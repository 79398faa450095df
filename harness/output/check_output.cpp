#include <harness/output/check_output.h>

#include <cstdio>

#include <harness/engine/data_files.h>
#include <harness/json/json.h>
#include <harness/output/json_reports.h>
#include <runtime_ext/core/byte_count.h>

namespace devplan::harness {
namespace {

// "1.250": a buffer's size over its lower bound.
std::string ratio_text(uint64_t size, uint64_t lower_bound) {
  if (lower_bound == 0) return size == 0 ? "1.000" : "n/a";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3f",
                static_cast<double>(size) / static_cast<double>(lower_bound));
  return buf;
}

// "12.50% above", "at".
std::string above_text(uint64_t size, uint64_t bound) {
  if (size <= bound || bound == 0) return "at";
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%.2f%% above",
                100.0 * (static_cast<double>(size) / static_cast<double>(bound) - 1.0));
  return buf;
}

// Per method, per overlap: the "probe" object (confirmed, evidence) check_json puts on it.
std::vector<std::vector<Json>> overlap_probes_json(const std::vector<MethodCheck>& checks,
                                                   const ProbeReport& probe) {
  std::vector<std::vector<Json>> out;
  for (const MethodCheck& m : checks) {
    std::vector<Json>& method = out.emplace_back();
    for (const MethodProbe& p : probe.methods) {
      if (p.name != m.name) continue;
      for (size_t oi = 0; oi < m.overlaps.size(); ++oi) {
        if (!p.probed) {
          method.push_back(
              Json{{"confirmed", false},
                   {"evidence", "not judged: the method was not probed (" + p.not_probed + ")"}});
        } else if (oi < p.overlaps.size()) {
          method.push_back(
              Json{{"confirmed", p.overlaps[oi].confirmed}, {"evidence", p.overlaps[oi].evidence}});
        }
      }
    }
  }
  return out;
}

}  // namespace

void print_check_text(std::ostream& out, const std::string& file,
                      const std::vector<MethodCheck>& checks,
                      const std::vector<std::vector<BufferOptimum>>& optimums,
                      const CheckedData* data, const ProbeReport* probe) {
  out << "file: " << file << "\n";
  size_t overlaps = 0, violations = 0;
  for (size_t mi = 0; mi < checks.size(); ++mi) {
    const MethodCheck& m = checks[mi];
    out << "method " << m.name << ": " << m.num_steps << " steps\n";
    for (size_t bi = 0; bi < m.buffers.size(); ++bi) {
      const BufferCheck& b = m.buffers[bi];
      const BufferOptimum& o = optimums[mi][bi];
      out << "  buffer " << b.index << ": " << format_bytes(b.size) << " on "
          << b.device.to_string() << ", lower bound " << format_bytes(b.lower_bound)
          << " (size/bound " << ratio_text(b.size, b.lower_bound) << "), " << b.planned_tensors
          << " planned tensors\n";
      out << "    optimum: ";
      if (o.optimal()) {
        out << format_bytes(o.best) << " (proven";
      } else {
        out << "between " << format_bytes(o.proven_bound) << " and " << format_bytes(o.best)
            << " (the search's budget ran out";
      }
      out << ", " << o.steps << " search steps); the plan is " << above_text(b.size, o.proven_bound)
          << (o.optimal() ? " the optimum" : " the proven bound") << "\n";
    }
    for (const std::string& warning : m.warnings) out << "  warning: " << warning << "\n";
    for (const std::string& note : m.notes) out << "  note: " << note << "\n";
    if (data != nullptr && mi < data->methods.size()) {
      for (const ValueSummary& v : data->methods[mi].external) {
        out << "  data: value " << v.value_index << " '" << v.fully_qualified_name << "' "
            << v.external_data << "\n";
      }
    }
    const MethodProbe* probed = nullptr;
    if (probe != nullptr) {
      for (const MethodProbe& p : probe->methods) {
        if (p.name == m.name) probed = &p;
      }
    }
    for (size_t oi = 0; oi < m.overlaps.size(); ++oi) {
      out << "  OVERLAP " << describe_overlap(m.overlaps[oi]) << "\n";
      if (probed == nullptr) continue;
      if (!probed->probed) {
        out << "    probe: not judged: the method was not probed (" << probed->not_probed << ")\n";
      } else if (oi < probed->overlaps.size()) {
        out << "    probe: " << probed->overlaps[oi].evidence << "\n";
      }
    }
    for (const DeviceViolation& d : m.device_violations) out << "  DEVICE " << d.message << "\n";
    overlaps += m.overlaps.size();
    violations += m.device_violations.size();
  }
  if (data != nullptr && data->files != nullptr) {
    for (const DataFiles::Owned& f : data->files->files()) {
      out << "data file: " << data_file_summary(f.file) << "\n";
    }
  }
  std::string verdict;
  if (overlaps > 0) verdict = std::to_string(overlaps) + " overlaps";
  if (violations > 0) {
    verdict += (verdict.empty() ? "" : ", ") + std::to_string(violations) + " device violations";
  }
  out << "result: " << (verdict.empty() ? "clean" : verdict) << "\n";
}

std::string check_report_json(const std::string& file, const std::vector<MethodCheck>& checks,
                              const std::vector<std::vector<BufferOptimum>>& optimums,
                              const CheckedData* data, const ProbeReport* probe) {
  const std::vector<std::vector<Json>> evidence =
      probe != nullptr ? overlap_probes_json(checks, *probe) : std::vector<std::vector<Json>>();
  return check_json(file, checks, optimums, data, probe != nullptr ? &evidence : nullptr);
}

}  // namespace devplan::harness
