#include <harness/services/budget_file.h>

#include <harness/services/probe.h>

#include <harness/engine/runtime_kind.h>
#include <harness/json/json.h>

#include <cmath>
#include <filesystem>

namespace devplan::harness {
namespace {

// --- reading ---------------------------------------------------------------------------------

// Reads one budget file, each error naming the member's path ("programs.\"m.pte\".methods").
class BudgetReader {
 public:
  explicit BudgetReader(std::string file) : file_(std::move(file)) {}

  Result<Budget> read(const Json& doc) {
    if (!doc.is_object()) return wrong("", "the file is not a JSON object");
    auto format = doc.find("format");
    if (format == doc.end() || !format->is_string() ||
        format->get<std::string>() != kBudgetFormat) {
      return Error(ErrorCode::InvalidArgument,
                   file_ + ": not a devplan budget (expected \"format\": \"" + kBudgetFormat +
                       "\"; write one with devplan budget record)");
    }
    auto version = doc.find("schema_version");
    if (version == doc.end() || !version->is_number_unsigned() ||
        version->get<uint64_t>() != static_cast<uint64_t>(kBudgetSchemaVersion)) {
      const std::string got = version == doc.end() ? "none" : write_json(*version);
      return Error(ErrorCode::InvalidArgument, file_ + ": schema_version " + got +
                                                   " is not supported (this devplan reads " +
                                                   std::to_string(kBudgetSchemaVersion) +
                                                   "); record the budget again with this devplan");
    }
    Budget budget;
    DEVPLAN_RETURN_IF_ERROR(optional_percent(doc, "", &budget.tolerance_pct));
    DEVPLAN_ASSIGN_OR_RETURN(const Json* programs, member(doc, "", "programs", &Json::is_object,
                                                          "an object of programs"));
    for (const auto& [name, p] : programs->items()) {
      const std::string path = "programs." + write_json(Json(name));
      DEVPLAN_ASSIGN_OR_RETURN(BudgetProgram program, read_program(p, path));
      budget.programs[name] = std::move(program);
    }
    for (const auto& [name, value] : doc.items()) {
      if (name != "format" && name != "schema_version" && name != "programs" &&
          name != "tolerance_pct") {
        return wrong(name, "unknown member");
      }
    }
    return budget;
  }

 private:
  Error wrong(const std::string& path, const std::string& what) const {
    return Error(ErrorCode::InvalidArgument,
                 file_ + ": " + (path.empty() ? "" : path + ": ") + what);
  }

  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

  Result<const Json*> member(const Json& object, const std::string& path, const char* key,
                             bool (Json::*is_type)() const noexcept, const char* expected) const {
    auto it = object.find(key);
    if (it == object.end()) return wrong(join(path, key), "missing");
    if (!((*it).*is_type)()) return wrong(join(path, key), std::string("expected ") + expected);
    return &*it;
  }

  Result<uint64_t> count(const Json& object, const std::string& path, const char* key) const {
    DEVPLAN_ASSIGN_OR_RETURN(const Json* v, member(object, path, key, &Json::is_number_unsigned,
                                                   "a whole number, 0 or above"));
    return v->get<uint64_t>();
  }

  Error optional_percent(const Json& object, const std::string& path,
                         std::optional<double>* pct) const {
    auto it = object.find("tolerance_pct");
    if (it == object.end()) return Error();
    if (!it->is_number() || it->get<double>() < 0 || !std::isfinite(it->get<double>())) {
      return wrong(join(path, "tolerance_pct"), "expected a percentage, 0 or above");
    }
    *pct = it->get<double>();
    return Error();
  }

  Result<Device> device(const std::string& text, const std::string& path) const {
    Result<Device> d = parse_any_device(text);
    if (!d.ok()) return wrong(path, "'" + text + "' is not a device (cpu:0, cuda:1, ...)");
    return *d;
  }

  Result<std::map<Device, uint64_t>> bytes_per_device(const Json& object, const std::string& path,
                                                      const char* key) const {
    DEVPLAN_ASSIGN_OR_RETURN(const Json* m, member(object, path, key, &Json::is_object,
                                                   "an object of bytes per device"));
    std::map<Device, uint64_t> out;
    for (const auto& [name, value] : m->items()) {
      const std::string at = join(path, key) + "." + write_json(Json(name));
      DEVPLAN_ASSIGN_OR_RETURN(Device d, device(name, at));
      if (!value.is_number_unsigned()) return wrong(at, "expected a byte count");
      out[d] = value.get<uint64_t>();
    }
    return out;
  }

  Result<BudgetProgram> read_program(const Json& p, const std::string& path) const {
    if (!p.is_object()) return wrong(path, "expected an object with \"methods\"");
    BudgetProgram program;
    DEVPLAN_RETURN_IF_ERROR(optional_percent(p, path, &program.tolerance_pct));
    DEVPLAN_ASSIGN_OR_RETURN(const Json* methods,
                             member(p, path, "methods", &Json::is_object, "an object of methods"));
    for (const auto& [name, m] : methods->items()) {
      const std::string at = path + ".methods." + write_json(Json(name));
      DEVPLAN_ASSIGN_OR_RETURN(BudgetMethod method, read_method(m, at));
      program.methods[name] = std::move(method);
    }
    return program;
  }

  Result<BudgetMethod> read_method(const Json& m, const std::string& path) const {
    if (!m.is_object()) return wrong(path, "expected an object");
    BudgetMethod method;
    DEVPLAN_ASSIGN_OR_RETURN(const Json* buffers,
                             member(m, path, "buffers", &Json::is_array, "an array of buffers"));
    for (size_t i = 0; i < buffers->size(); ++i) {
      const Json& b = (*buffers)[i];
      const std::string at = path + ".buffers[" + std::to_string(i) + "]";
      if (!b.is_object()) return wrong(at, "expected {\"device\", \"size\"}");
      DEVPLAN_ASSIGN_OR_RETURN(const Json* d,
                               member(b, at, "device", &Json::is_string, "a device name"));
      DEVPLAN_ASSIGN_OR_RETURN(Device dev, device(d->get<std::string>(), at + ".device"));
      DEVPLAN_ASSIGN_OR_RETURN(uint64_t size, count(b, at, "size"));
      method.buffers.push_back({dev, size});
    }
    DEVPLAN_ASSIGN_OR_RETURN(const Json* loads, member(m, path, "loads", &Json::is_object,
                                                       "an object of loads per engine"));
    for (const auto& [engine, l] : loads->items()) {
      const std::string at = path + ".loads." + write_json(Json(engine));
      if (!parse_runtime_kind(engine).ok()) return wrong(at, "not an engine (devplan, executorch)");
      DEVPLAN_ASSIGN_OR_RETURN(BudgetLoad load, read_load(l, at));
      method.loads[engine] = std::move(load);
    }
    DEVPLAN_ASSIGN_OR_RETURN(method.peak_device_bytes,
                             bytes_per_device(m, path, "peak_device_bytes"));
    DEVPLAN_ASSIGN_OR_RETURN(const Json* ratio,
                             member(m, path, "plan_ratio", &Json::is_number, "a number"));
    method.plan_ratio = ratio->get<double>();
    DEVPLAN_ASSIGN_OR_RETURN(method.planned_bytes, bytes_per_device(m, path, "planned_bytes"));
    return method;
  }

  Result<BudgetLoad> read_load(const Json& l, const std::string& path) const {
    if (!l.is_object()) return wrong(path, "expected an object");
    BudgetLoad load;
    DEVPLAN_ASSIGN_OR_RETURN(const Json* loaded,
                             member(l, path, "loaded", &Json::is_boolean, "true or false"));
    load.loaded = loaded->get<bool>();
    DEVPLAN_ASSIGN_OR_RETURN(const Json* a, member(l, path, "allocations", &Json::is_object,
                                                   "an object of allocations per device"));
    for (const auto& [name, value] : a->items()) {
      const std::string at = path + ".allocations." + write_json(Json(name));
      DEVPLAN_ASSIGN_OR_RETURN(Device d, device(name, at));
      if (!value.is_object()) return wrong(at, "expected {\"bytes\", \"count\"}");
      DEVPLAN_ASSIGN_OR_RETURN(uint64_t bytes, count(value, at, "bytes"));
      DEVPLAN_ASSIGN_OR_RETURN(uint64_t n, count(value, at, "count"));
      load.allocations[d] = DeviceLoad{n, bytes};
    }
    DEVPLAN_ASSIGN_OR_RETURN(load.leaks, count(l, path, "leaks"));
    DEVPLAN_ASSIGN_OR_RETURN(load.misuse, count(l, path, "misuse"));
    DEVPLAN_ASSIGN_OR_RETURN(load.placeholders, strings(l, path, "placeholders"));
    if (l.contains("probe")) {
      DEVPLAN_ASSIGN_OR_RETURN(const Json* probe,
                               member(l, path, "probe", &Json::is_string, "a string"));
      load.probe = probe->get<std::string>();
    }
    DEVPLAN_ASSIGN_OR_RETURN(load.probe_findings, strings(l, path, "probe_findings"));
    return load;
  }

  // An optional array of strings (empty when absent).
  Result<std::vector<std::string>> strings(const Json& l, const std::string& path,
                                           const char* key) const {
    std::vector<std::string> out;
    if (!l.contains(key)) return out;
    const Json& p = l.at(key);
    const std::string at = path + "." + key;
    if (!p.is_array()) return wrong(at, "expected an array of strings");
    for (const Json& item : p) {
      if (!item.is_string()) return wrong(at, "expected an array of strings");
      out.push_back(item.get<std::string>());
    }
    return out;
  }

  std::string file_;
};

// --- writing ---------------------------------------------------------------------------------

// Members are added in sorted order (every map here is sorted), so the text has sorted keys.
Json bytes_json(const std::map<Device, uint64_t>& bytes) {
  Json j = Json::object();
  std::map<std::string, uint64_t> sorted;
  for (const auto& [device, n] : bytes) sorted[device.to_string()] = n;
  for (const auto& [name, n] : sorted) j[name] = n;
  return j;
}

Json load_json(const BudgetLoad& load) {
  std::map<std::string, DeviceLoad> sorted;
  for (const auto& [device, d] : load.allocations) sorted[device.to_string()] = d;
  Json allocations = Json::object();
  for (const auto& [name, d] : sorted) {
    allocations[name] = {{"bytes", d.bytes}, {"count", d.allocations}};
  }
  Json j = {{"allocations", std::move(allocations)},
            {"leaks", load.leaks},
            {"loaded", load.loaded},
            {"misuse", load.misuse}};
  if (!load.placeholders.empty()) j["placeholders"] = load.placeholders;
  if (!load.probe.empty()) j["probe"] = load.probe;
  if (!load.probe_findings.empty()) j["probe_findings"] = load.probe_findings;
  return j;
}

Json method_json(const BudgetMethod& m) {
  Json buffers = Json::array();
  for (const BudgetBuffer& b : m.buffers) {
    buffers.push_back({{"device", b.device.to_string()}, {"size", b.size}});
  }
  Json loads = Json::object();
  for (const auto& [engine, load] : m.loads) loads[engine] = load_json(load);
  return {{"buffers", std::move(buffers)},
          {"loads", std::move(loads)},
          {"peak_device_bytes", bytes_json(m.peak_device_bytes)},
          {"plan_ratio", m.plan_ratio},
          {"planned_bytes", bytes_json(m.planned_bytes)}};
}

double rounded_ratio(double ratio) { return std::round(ratio * 10000.0) / 10000.0; }

}  // namespace

std::string budget_key(const std::string& file) {
  return std::filesystem::path(file).filename().string();
}

Result<Budget> read_budget(const std::string& path) {
  DEVPLAN_ASSIGN_OR_RETURN(Json doc, parse_json_file(path));
  return BudgetReader(path).read(doc);
}

std::string write_budget(const Budget& budget) {
  std::string text = "{\n  \"format\": " + write_json(Json(kBudgetFormat)) + ",\n";
  text += "  \"programs\": {";
  bool first_program = true;
  for (const auto& [name, program] : budget.programs) {
    text += std::string(first_program ? "" : ",") + "\n    " + write_json(Json(name)) +
            ": {\n      \"methods\": {";
    first_program = false;
    bool first_method = true;
    for (const auto& [method, figures] : program.methods) {
      text += std::string(first_method ? "" : ",") + "\n        " + write_json(Json(method)) +
              ": " + write_json(method_json(figures));
      first_method = false;
    }
    text += program.methods.empty() ? "}" : "\n      }";
    if (program.tolerance_pct) {
      text += ",\n      \"tolerance_pct\": " + write_json(Json(*program.tolerance_pct));
    }
    text += "\n    }";
  }
  text += budget.programs.empty() ? "}" : "\n  }";
  text += ",\n  \"schema_version\": " + std::to_string(kBudgetSchemaVersion);
  if (budget.tolerance_pct) {
    text += ",\n  \"tolerance_pct\": " + write_json(Json(*budget.tolerance_pct));
  }
  return text + "\n}\n";
}

Result<BudgetProgram> measure_program(const std::string& file, const std::vector<std::string>& data,
                                      const DeviceSetup& device) {
  // The optimum is not part of a budget (budget_steps 0 skips the search).
  DEVPLAN_ASSIGN_OR_RETURN(ProgramFigures figures, program_figures(file, 0));
  std::vector<std::string> names;
  for (const MethodFigures& m : figures.methods) names.push_back(m.name);
  BudgetProgram program;
  for (const MethodFigures& m : figures.methods) {
    BudgetMethod& method = program.methods[m.name];
    for (const BufferFigures& b : m.buffers) method.buffers.push_back({b.device, b.size});
    method.peak_device_bytes = m.peak_device_bytes;
    method.plan_ratio = rounded_ratio(m.plan_ratio());
    method.planned_bytes = m.planned_bytes;
  }
  for (RuntimeKind runtime : built_runtimes()) {
    DEVPLAN_ASSIGN_OR_RETURN(std::vector<LoadFigures> loads,
                             load_figures(file, names, runtime, data, device));
    for (const LoadFigures& l : loads) {
      BudgetLoad& load = program.methods[l.method].loads[runtime_name(runtime)];
      load.loaded = l.status.ok();
      if (!l.status.ok()) load.error = l.status.to_string();
      load.allocations = l.devices;
      load.leaks = l.leaks;
      load.misuse = l.misuse;
      load.placeholders = l.stand_ins;
    }
    ProbeOptions probe;
    probe.runtime = runtime;
    probe.data = data;
    probe.device = device;
    // A program this engine cannot load (recorded as such above) cannot be probed either.
    Result<std::map<std::string, MethodProbeVerdict>> verdicts = probe_verdicts(file, probe);
    if (!verdicts.ok()) {
      for (const std::string& name : names) {
        program.methods[name].loads[runtime_name(runtime)].probe = "error";
      }
      continue;
    }
    for (const auto& [name, verdict] : *verdicts) {
      BudgetLoad& load = program.methods[name].loads[runtime_name(runtime)];
      load.probe = verdict.result;
      load.probe_findings = verdict.findings;
    }
  }
  return program;
}

}  // namespace devplan::harness
