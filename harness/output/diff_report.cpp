#include <harness/output/diff_report.h>

#include <harness/output/json_document.h>
#include <harness/services/growth.h>
#include <runtime_ext/core/byte_count.h>
#include <runtime_ext/core/text_join.h>

namespace devplan::harness {

std::string diff_text(const ProgramDiff& diff) {
  std::string text = "diff: " + diff.old_file + " -> " + diff.new_file + "\n";
  if (diff.options.runtime) {
    text += std::string("runtime: ") + runtime_name(*diff.options.runtime) + "\n";
    if (diff.options.device.kind == DeviceKind::Cuda) {
      text += "devices: " + diff.options.device.describe() + "\n";
    }
  }
  size_t changed_methods = 0;
  for (const MethodDiff& m : diff.methods) {
    text += "method " + m.name + ": ";
    switch (m.status) {
      case MethodStatus::Same:
        text += "same\n";
        continue;
      case MethodStatus::Changed:
        text += std::to_string(m.changes.size()) +
                (m.changes.size() == 1 ? " difference\n" : " differences\n");
        break;
      case MethodStatus::Added:
      case MethodStatus::Removed:
        text += std::string(method_status_name(m.status)) + "\n";
        break;
    }
    ++changed_methods;
    for (const Change& c : m.changes) text += "  " + c.text + "\n";
  }
  for (const Growth& g : diff.growth) text += "GROWTH " + g.text + "\n";
  const size_t n = diff.differences();
  text += "result: ";
  if (n == 0) {
    text += "no differences";
  } else {
    text += std::to_string(n) + (n == 1 ? " difference" : " differences") + " in " +
            std::to_string(changed_methods) + (changed_methods == 1 ? " method" : " methods");
  }
  if (diff.options.fail_on_growth_pct) {
    text += diff.growth.empty() ? "; no peak device bytes grew by more than " +
                                      tolerance_text(*diff.options.fail_on_growth_pct)
                                : "; FAILED: peak device bytes grew by more than " +
                                      tolerance_text(*diff.options.fail_on_growth_pct);
  }
  return text + "\n";
}

Json diff_json(const ProgramDiff& diff) {
  Json doc = json_document();
  doc["old"] = diff.old_file;
  doc["new"] = diff.new_file;
  doc["runtime"] = diff.options.runtime ? Json(runtime_name(*diff.options.runtime)) : Json(nullptr);
  if (diff.options.device.kind == DeviceKind::Cuda) doc["device"] = "cuda";
  if (!diff.options.device.map.empty()) doc["device_map"] = diff.options.device.map.describe();
  Json methods = Json::array();
  for (const MethodDiff& m : diff.methods) {
    Json changes = Json::array();
    for (const Change& c : m.changes) changes.push_back(c.json);
    methods.push_back({{"name", m.name},
                       {"status", method_status_name(m.status)},
                       {"changes", std::move(changes)}});
  }
  doc["methods"] = std::move(methods);
  doc["differences"] = diff.differences();
  doc["fail_on_growth_pct"] =
      diff.options.fail_on_growth_pct ? Json(*diff.options.fail_on_growth_pct) : Json(nullptr);
  Json growth = Json::array();
  for (const Growth& g : diff.growth) {
    const std::optional<double> pct = growth_percent(g.old_bytes, g.new_bytes);
    growth.push_back({{"method", g.method},
                      {"device", g.device.to_string()},
                      {"old", g.old_bytes},
                      {"new", g.new_bytes},
                      {"percent", pct ? Json(*pct) : Json(nullptr)}});
  }
  doc["growth"] = std::move(growth);
  doc["result"] = diff.growth.empty() ? "ok" : "grew";
  return doc;
}

}  // namespace devplan::harness
