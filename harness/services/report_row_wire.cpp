#include <harness/services/report_row_wire.h>

#include <utility>

namespace devplan::harness {
namespace {

Json not_run_json(const NotRun& n) {
  Json j;
  j["name"] = n.name;
  j["kernels"] = n.missing.kernels;
  j["backends"] = n.missing.backends;
  j["unnamed"] = n.missing.unnamed;
  j["reason"] = n.reason;
  return j;
}

NotRun not_run_from_json(const Json& j) {
  NotRun n;
  n.name = j.at("name").get<std::string>();
  n.missing.kernels = j.at("kernels").get<std::vector<std::string>>();
  n.missing.backends = j.at("backends").get<std::vector<std::string>>();
  n.missing.unnamed = j.at("unnamed").get<std::string>();
  n.reason = j.at("reason").get<std::string>();
  return n;
}

}  // namespace

Json row_wire_json(const ProgramRow& r) {
  Json j;
  j["name"] = r.name;
  if (!r.error.empty()) j["error"] = r.error;
  j["methods"] = r.methods;
  Json devices = Json::object();
  for (const auto& [device, n] : r.buffers_per_device) devices[device] = n;
  j["buffers_per_device"] = std::move(devices);
  j["allocations"] = r.allocations;
  j["leaks"] = r.leaks;
  j["misuse"] = r.misuse;
  j["overlaps"] = r.overlaps;
  j["methods_run"] = r.methods_run;
  if (!r.run_error.empty()) j["run_error"] = r.run_error;
  Json not_run = Json::array();
  for (const NotRun& n : r.not_run) not_run.push_back(not_run_json(n));
  j["not_run"] = std::move(not_run);
  j["write_errors"] = r.write_errors;
  j["test_cases"] = r.test_cases;
  j["test_cases_passed"] = r.test_cases_passed;
  j["test_failures"] = r.test_failures;
  j["probe"] = r.probe;
  j["probe_findings"] = r.probe_findings;
  j["probe_errors"] = r.probe_errors;
  return j;
}

ProgramRow row_from_wire_json(const Json& j) {
  ProgramRow r;
  r.name = j.value("name", "");
  r.error = j.value("error", "");
  r.methods = j.value("methods", size_t{0});
  for (const auto& [device, n] : j.at("buffers_per_device").items()) {
    r.buffers_per_device[device] = n.get<size_t>();
  }
  r.allocations = j.value("allocations", size_t{0});
  r.leaks = j.value("leaks", size_t{0});
  r.misuse = j.value("misuse", size_t{0});
  r.overlaps = j.value("overlaps", size_t{0});
  r.methods_run = j.value("methods_run", size_t{0});
  r.run_error = j.value("run_error", "");
  for (const Json& n : j.at("not_run")) r.not_run.push_back(not_run_from_json(n));
  r.write_errors = j.at("write_errors").get<std::vector<std::string>>();
  r.test_cases = j.value("test_cases", size_t{0});
  r.test_cases_passed = j.value("test_cases_passed", size_t{0});
  r.test_failures = j.at("test_failures").get<std::vector<std::string>>();
  r.probe = j.value("probe", "");
  r.probe_findings = j.at("probe_findings").get<std::vector<std::string>>();
  r.probe_errors = j.at("probe_errors").get<std::vector<std::string>>();
  return r;
}

}  // namespace devplan::harness
