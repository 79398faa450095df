#include <harness/output/budget_output.h>

#include <type_traits>
#include <variant>

#include <harness/json/json.h>
#include <harness/output/json_document.h>
#include <runtime_ext/core/text_join.h>

namespace devplan::harness {
namespace {

const char* line_prefix(FindingKind kind) {
  switch (kind) {
    case FindingKind::Grew:
      return "FAIL ";
    case FindingKind::Note:
      return "note: ";
    default:
      return "";
  }
}

// A finding's value in JSON; not called for std::monostate (a value not given).
Json value_json(const FindingValue& value) {
  return std::visit(
      [](const auto& v) -> Json {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return Json(nullptr);
        } else {
          return Json(v);
        }
      },
      value);
}

// {"kind", "method", "what", "index", "runtime", "device", "old", "new", "text"}, without the
// members that do not apply.
Json finding_json(const BudgetFinding& f) {
  Json json = {{"kind", finding_kind_name(f.kind)},
               {"method", f.method.empty() ? Json(nullptr) : Json(f.method)}};
  const FindingDetail& d = f.detail;
  json["what"] = d.what;
  if (d.index) json["index"] = *d.index;
  if (!d.runtime.empty()) json["runtime"] = d.runtime;
  if (!d.device.empty()) json["device"] = d.device;
  if (!std::holds_alternative<std::monostate>(d.old_value)) json["old"] = value_json(d.old_value);
  if (!std::holds_alternative<std::monostate>(d.new_value)) json["new"] = value_json(d.new_value);
  json["text"] = f.text;
  return json;
}

}  // namespace

void print_budget_record_text(std::ostream& out, const Budget& budget, const std::string& path,
                              const BudgetRecording& recording, const DeviceSetup& device) {
  size_t methods = 0;
  for (const std::string& name : recording.recorded)
    methods += budget.programs.at(name).methods.size();
  const size_t programs = recording.recorded.size();
  out << "recorded " << programs << (programs == 1 ? " program" : " programs") << " (" << methods
      << (methods == 1 ? " method" : " methods") << ") in " << path << "\n";
  if (device.kind == DeviceKind::Cuda) out << "devices: " << device.describe() << "\n";
  for (const std::string& name : recording.recorded) {
    const BudgetProgram& p = budget.programs.at(name);
    out << "  " << name << ":";
    for (const auto& [method, m] : p.methods) out << " " << method;
    out << "\n";
    for (const auto& [method, m] : p.methods) {
      for (const auto& [engine, load] : m.loads) {
        if (load.placeholders.empty()) continue;
        out << "    " << method << ": " << engine << " loaded with placeholders for "
            << join(load.placeholders, ", ") << " (it cannot run here)\n";
      }
    }
  }
  for (const std::string& name : recording.dropped) {
    out << "  dropped " << name << " (it was in the budget; not given now)\n";
  }
  for (const std::string& name : recording.kept) {
    out << "  kept " << name << " (in the budget; not given now)\n";
  }
}

std::string budget_record_json(const Budget& budget, const std::string& path,
                               const BudgetRecording& recording, const DeviceSetup& device) {
  Json doc = json_document();
  doc["budget"] = path;
  if (device.kind == DeviceKind::Cuda) doc["devices"] = device.describe();
  Json programs = Json::array();
  for (const std::string& name : recording.recorded) {
    Json names = Json::array();
    for (const auto& [method, m] : budget.programs.at(name).methods) names.push_back(method);
    programs.push_back({{"name", name}, {"methods", std::move(names)}});
  }
  doc["programs"] = std::move(programs);
  doc["dropped"] = recording.dropped;
  doc["kept"] = recording.kept;
  return write_json(doc);
}

void print_budget_check_text(std::ostream& out, const std::string& budget_file,
                             const std::vector<ProgramCheck>& checks, const std::string& accept,
                             const DeviceSetup& device) {
  out << "budget: " << budget_file << "\n";
  if (device.kind == DeviceKind::Cuda) out << "devices: " << device.describe() << "\n";
  size_t failures = 0, failed_programs = 0;
  for (const ProgramCheck& c : checks) {
    const size_t n = c.failures();
    failures += n;
    failed_programs += n > 0;
    out << "program " << c.name << " (" << c.file << "): "
        << (n == 0 ? "ok"
                   : "FAILED, " + std::to_string(n) + (n == 1 ? " figure" : " figures") +
                         " grew beyond the budget")
        << "\n";
    for (const BudgetFinding& f : c.findings) {
      out << "  " << line_prefix(f.kind) << f.text << "\n";
    }
  }
  if (failures == 0) {
    out << "result: within the budget (" << checks.size()
        << (checks.size() == 1 ? " program" : " programs") << ")\n";
    return;
  }
  out << "result: FAILED: " << failures << (failures == 1 ? " figure" : " figures")
      << " grew beyond the budget in " << failed_programs
      << (failed_programs == 1 ? " program" : " programs") << "\n"
      << "To accept the change: " << accept << "\n";
}

std::string budget_check_json(const std::string& budget_file,
                              const std::vector<ProgramCheck>& checks, const std::string& accept,
                              const DeviceSetup& device) {
  Json doc = json_document();
  doc["budget"] = budget_file;
  if (device.kind == DeviceKind::Cuda) doc["devices"] = device.describe();
  Json programs = Json::array();
  size_t failures = 0;
  for (const ProgramCheck& c : checks) {
    Json findings = Json::array();
    for (const BudgetFinding& f : c.findings) findings.push_back(finding_json(f));
    failures += c.failures();
    programs.push_back({{"name", c.name},
                        {"file", c.file},
                        {"result", c.failures() == 0 ? "ok" : "grew"},
                        {"findings", std::move(findings)}});
  }
  doc["programs"] = std::move(programs);
  doc["failures"] = failures;
  doc["result"] = failures == 0 ? "ok" : "grew";
  doc["accept"] = failures == 0 ? Json(nullptr) : Json(accept);
  return write_json(doc);
}

std::vector<JunitCase> budget_check_junit_cases(const std::vector<ProgramCheck>& checks) {
  std::vector<JunitCase> cases;
  for (const ProgramCheck& c : checks) {
    for (const std::string& method : c.methods) {
      std::string failure;
      for (const BudgetFinding& f : c.findings) {
        if (f.kind == FindingKind::Grew && f.method == method) failure += f.text + "\n";
      }
      cases.push_back({c.name, method, failure, 0});
    }
  }
  return cases;
}

}  // namespace devplan::harness
