#include <harness/output/probe_report.h>

#include <harness/output/json_document.h>

namespace devplan::harness {

void write_probe_text(const std::string& file, const ProbeReport& report, std::ostream& out) {
  out << "file: " << file << "\n";
  out << "runtime: " << runtime_name(report.runtime) << ", devices: " << report.devices << "\n";
  if (!report.injected.empty()) out << "injected bug: " << report.injected << "\n";
  for (const MethodProbe& m : report.methods) {
    if (!m.probed) {
      out << "method " << m.name << ": " << (m.error ? "ERROR " : "not probed: ") << m.not_probed
          << "\n";
      continue;
    }
    out << "method " << m.name << ": probed (" << m.executions << " executions, "
        << m.findings.size() << (m.findings.size() == 1 ? " finding" : " findings") << ")\n";
    for (const ProbeFinding& f : m.findings) out << f.line() << "\n";
    for (const std::string& note : m.notes) out << "  note: " << note << "\n";
    for (const OverlapVerdict& v : m.overlaps) {
      out << "  overlap " << describe_overlap(v.overlap) << ": " << v.evidence << "\n";
    }
  }
  for (const std::string& line : report.leak_lines) out << "LEAK " << line << "\n";
  for (const std::string& line : report.misuse_lines) out << "MISUSE " << line << "\n";
  out << "result: " << report.verdict() << "\n";
}

Json overlap_verdict_json(const OverlapVerdict& v) {
  return Json{{"value_a", v.overlap.value_a},
              {"value_b", v.overlap.value_b},
              {"buffer", v.overlap.buffer},
              {"confirmed", v.confirmed},
              {"evidence", v.evidence}};
}

Json probe_json(const std::string& file, const ProbeReport& report) {
  Json doc = json_document();
  doc["file"] = file;
  doc["runtime"] = runtime_name(report.runtime);
  doc["devices"] = report.devices;
  doc["injected_bug"] = report.injected;
  Json methods = Json::array();
  for (const MethodProbe& m : report.methods) {
    Json findings = Json::array();
    for (const ProbeFinding& f : m.findings) {
      findings.push_back(Json{{"kind", f.kind}, {"text", f.text}});
    }
    Json overlaps = Json::array();
    for (const OverlapVerdict& v : m.overlaps) overlaps.push_back(overlap_verdict_json(v));
    methods.push_back(Json{{"name", m.name},
                           {"probed", m.probed},
                           {"not_probed", m.not_probed},
                           {"error", m.error},
                           {"executions", m.executions},
                           {"findings", std::move(findings)},
                           {"notes", m.notes},
                           {"overlaps", std::move(overlaps)}});
  }
  doc["methods"] = std::move(methods);
  doc["leaks"] = report.leak_lines;
  doc["misuse"] = report.misuse_lines;
  doc["findings"] = report.finding_count();
  doc["result"] = report.verdict();
  return doc;
}

}  // namespace devplan::harness
