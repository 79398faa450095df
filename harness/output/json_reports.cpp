#include <harness/output/json_reports.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include <harness/engine/data_files.h>
#include <harness/json/json.h>
#include <harness/output/json_document.h>
#include <harness/output/summary_line.h>
#include <harness/services/device_statistics.h>
#include <harness/services/output_summary.h>
#include <harness/values/exit_codes.h>
#include <harness/values/tensor_values.h>

namespace devplan::harness {
namespace {

Json error_object(const Error& error) {
  return {{"code", error_code_name(error.code())}, {"message", error.message()}};
}

Json value_summary_json(const ValueSummary& v) {
  Json j;
  j["value"] = v.value_index;
  j["type"] = value_tag_name(v.tag);
  if (v.tag == ValueTag::Tensor) {
    j["dtype"] = scalar_type_name(v.dtype);
    j["sizes"] = v.sizes;
    j["nbytes"] = v.nbytes;
    j["device"] = v.device.to_string();
    j["storage"] = v.storage;
    if (v.legacy_host) j["legacy_host"] = true;
    if (!v.fully_qualified_name.empty()) j["fully_qualified_name"] = v.fully_qualified_name;
    if (!v.external_data.empty()) {
      j[v.external_found ? "data" : "data_error"] = v.external_data;
    }
  }
  return j;
}

Json value_summaries_json(const std::vector<ValueSummary>& values) {
  Json list = Json::array();
  for (const ValueSummary& v : values) list.push_back(value_summary_json(v));
  return list;
}

// The fields every ledger entry has: seq, device, size, alignment, owner.
Json allocation_json(const AllocationRecord& a) {
  return {{"seq", a.seq},
          {"device", a.device.to_string()},
          {"size", a.size},
          {"alignment", a.alignment},
          {"owner", a.owner}};
}

// An output element as formatted by tensor_values ("3", "-0.5", "true", "nan"): a JSON number
// or boolean, a double for every element of a floating-point tensor (so "1" is 1.0 and "-0"
// keeps its sign); NaN and infinities have no JSON form and become null.
Json element_json(const std::string& text, bool floating) {
  if (text == "true" || text == "false") return text == "true";
  if (is_nan_text(text) || text == "inf" || text == "-inf") return nullptr;
  errno = 0;
  char* end = nullptr;
  if (!floating && text.find_first_of(".eE") == std::string::npos) {
    if (text[0] == '-') {
      const long long n = std::strtoll(text.c_str(), &end, 10);
      if (*end == '\0' && errno == 0) return static_cast<int64_t>(n);
    } else {
      const unsigned long long n = std::strtoull(text.c_str(), &end, 10);
      if (*end == '\0' && errno == 0) return static_cast<uint64_t>(n);
    }
  }
  return std::strtod(text.c_str(), nullptr);
}

// Per device, the way RMM's statistics adaptor counts: bytes and allocations, each as current,
// peak and total.
Json statistics_json(const SimulationResult& r) {
  Json stats = Json::object();
  for (const DeviceStatistics& d : device_statistics(r.events)) {
    stats[d.device.to_string()] = {
        {"bytes", {{"current", d.bytes.current}, {"peak", d.bytes.peak}, {"total", d.bytes.total}}},
        {"allocations",
         {{"current", d.allocations.current},
          {"peak", d.allocations.peak},
          {"total", d.allocations.total}}}};
  }
  return stats;
}

// The lists of a simulation that has no result (an error or an abort), empty.
void add_empty_simulation_lists(Json& doc) {
  for (const char* list : {"methods", "allocations", "failed_allocations", "leaks", "misuse"}) {
    doc[list] = Json::array();
  }
  doc["statistics"] = Json::object();
}

}  // namespace

std::string error_json(const Error& error) {
  Json doc = json_document();
  doc["error"] = error_object(error);
  return write_json(doc);
}

Json data_files_json(const DataFiles& files) {
  Json list = Json::array();
  for (const DataFiles::Owned& f : files.files()) {
    list.push_back({{"file", f.file.name()},
                    {"tensors", f.file.entries().size()},
                    {"bytes", data_bytes(f.file)},
                    {"size", f.file.file_size()}});
  }
  return list;
}

std::string data_file_json(const DataFile& f) {
  Json doc = json_document();
  doc["file"] = f.name();
  doc["kind"] = "data";
  doc["version"] = f.version();
  doc["size"] = f.file_size();
  doc["segment_base_offset"] = f.segment_base_offset();
  doc["segment_data_size"] = f.segment_data_size();
  Json segments = Json::array();
  for (size_t i = 0; i < f.segments().size(); ++i) {
    segments.push_back(
        {{"index", i}, {"offset", f.segments()[i].offset}, {"size", f.segments()[i].size}});
  }
  doc["segments"] = std::move(segments);
  Json tensors = Json::array();
  for (const DataEntry& e : f.entries()) {
    Json t;
    t["key"] = e.key;
    if (e.has_layout) {
      t["dtype"] = scalar_type_name(e.dtype);
      t["sizes"] = e.sizes;
      t["dim_order"] = e.dim_order;
    }
    t["bytes"] = f.data(e).size();
    t["segment"] = e.segment;
    t["offset"] = f.segments()[e.segment].offset;
    t["alignment"] = f.alignment(e);
    tensors.push_back(std::move(t));
  }
  doc["tensors"] = std::move(tensors);
  return write_json(doc);
}

std::string inspect_json(const std::string& file, const std::vector<MethodSummary>& methods) {
  Json doc = json_document();
  doc["file"] = file;
  Json list = Json::array();
  for (const MethodSummary& m : methods) {
    Json method;
    method["name"] = m.name;
    Json buffers = Json::array();
    for (const BufferSummary& b : m.buffers) {
      buffers.push_back({{"index", b.index},
                         {"size", b.size},
                         {"device", b.device.to_string()},
                         {"planned_tensors", b.planned_tensors},
                         {"max_end", b.max_end}});
    }
    method["buffers"] = std::move(buffers);
    Json peak = Json::object();
    for (const auto& [device, bytes] : peak_device_bytes(m)) peak[device.to_string()] = bytes;
    method["peak_device_bytes"] = std::move(peak);
    method["values"] = m.num_values;
    method["instructions"] = m.num_instructions;
    method["operators"] = m.operators;
    method["delegates"] = m.delegates;
    method["inputs"] = value_summaries_json(m.inputs);
    method["outputs"] = value_summaries_json(m.outputs);
    method["external"] = value_summaries_json(m.external);
    method["notes"] = m.notes;
    list.push_back(std::move(method));
  }
  doc["methods"] = std::move(list);
  return write_json(doc);
}

std::string simulate_json(const SimulationResult& r, int exit_code) {
  Json doc = json_document();
  doc["status"] = exit_code == cli::kExitOk ? "ok"
                  : !r.leaks.empty()        ? "leak"
                  : !r.misuse.empty()       ? "misuse"
                                            : "error";
  doc["runtime"] = runtime_name(r.runtime);
  doc["device_memory"] = r.device_memory;
  if (!r.device_map.empty()) doc["device_map"] = r.device_map;
  Json methods = Json::array();
  for (const MethodOutcome& m : r.methods) {
    Json method;
    method["name"] = m.name;
    method["status"] = m.status.ok() ? "ok" : error_code_name(m.status.code());
    if (!m.status.ok()) method["message"] = m.status.message();
    Json buffers = Json::array();
    for (const BufferOutcome& b : m.buffers) {
      buffers.push_back({{"index", b.index},
                         {"size", b.size},
                         {"device", b.device.to_string()},
                         {"allocated", b.allocated}});
    }
    method["buffers"] = std::move(buffers);
    Json stand_ins = Json::array();
    for (const std::string& s : m.stand_ins) stand_ins.push_back(s);
    method["placeholders"] = std::move(stand_ins);
    methods.push_back(std::move(method));
  }
  doc["methods"] = std::move(methods);
  Json allocations = Json::array();
  for (const AllocationRecord& a : r.allocations) {
    Json entry = allocation_json(a);
    entry["freed"] = !a.live;
    allocations.push_back(std::move(entry));
  }
  doc["allocations"] = std::move(allocations);
  Json failed = Json::array();
  for (const FailedAllocation& f : r.failed_allocations) {
    failed.push_back({{"seq", f.seq},
                      {"device", f.device.to_string()},
                      {"size", f.size},
                      {"alignment", f.alignment},
                      {"owner", f.owner},
                      {"code", error_code_name(f.code)},
                      {"reason", f.reason}});
  }
  doc["failed_allocations"] = std::move(failed);
  Json leaks = Json::array();
  for (size_t i = 0; i < r.leaks.size(); ++i) {
    Json entry = allocation_json(r.leaks[i]);
    entry["report"] = i < r.leak_lines.size() ? r.leak_lines[i] : format_allocation(r.leaks[i]);
    leaks.push_back(std::move(entry));
  }
  doc["leaks"] = std::move(leaks);
  Json misuse = Json::array();
  for (const MisuseRecord& m : r.misuse) {
    misuse.push_back({{"kind", misuse_kind_name(m.kind)},
                      {"device", m.device.to_string()},
                      {"allocation_seq", m.allocation_seq},
                      {"message", m.message}});
  }
  doc["misuse"] = std::move(misuse);
  doc["statistics"] = statistics_json(r);
  doc["summary"] = simulation_summary(r);
  return write_json(doc);
}

std::string simulate_abort_json(const std::string& message) {
  Json doc = json_document();
  doc["status"] = "abort";
  doc["runtime"] = runtime_name(RuntimeKind::Executorch);
  doc["error"] = {{"code", "Aborted"}, {"message", message}};
  add_empty_simulation_lists(doc);
  return write_json(doc);
}

std::string simulate_error_json(const Error& error, RuntimeKind runtime) {
  Json doc = json_document();
  doc["status"] = "error";
  doc["runtime"] = runtime_name(runtime);
  doc["error"] = error_object(error);
  add_empty_simulation_lists(doc);
  return write_json(doc);
}

std::string run_json(const RunReport& report, bool full) {
  Json doc = json_document();
  doc["method"] = report.method;
  doc["runtime"] = runtime_name(report.runtime);
  if (!report.device_map.empty()) doc["device_map"] = report.device_map;
  Json outputs = Json::array();
  for (const OutputValues& o : report.outputs) {
    Json output;
    output["index"] = o.index;
    output["type"] = value_tag_name(o.tag);
    if (o.tag == ValueTag::Tensor) {
      output["dtype"] = scalar_type_name(o.dtype);
      output["sizes"] = o.sizes;
      output["device"] = o.device.to_string();
    }
    const bool floating = o.tag == ValueTag::Tensor
                              ? is_floating_dtype(o.dtype)
                              : o.tag == ValueTag::Double || o.tag == ValueTag::DoubleList;
    auto texts_json = [&](const std::vector<std::string>& texts) {
      Json list = Json::array();
      for (const std::string& v : texts) list.push_back(element_json(v, floating));
      return list;
    };
    if (summarized(o, full)) {
      const OutputSummary s = summarize_output(o);
      Json summary;
      summary["elements"] = s.elements;
      summary["first"] = texts_json(s.first);
      summary["last"] = texts_json(s.last);
      summary["min"] = s.min.empty() ? Json(nullptr) : element_json(s.min, floating);
      summary["max"] = s.max.empty() ? Json(nullptr) : element_json(s.max, floating);
      summary["mean"] = std::isfinite(s.mean) ? Json(s.mean) : Json(nullptr);
      if (floating) {
        summary["nan"] = s.nan;
        summary["inf"] = s.inf;
      }
      summary["fnv1a64"] = checksum_text(s.fnv1a64);
      output["summary"] = std::move(summary);
    } else if (o.tag == ValueTag::Tensor) {
      Json values = Json::array();
      const size_t n = o.bytes.size() / element_size(o.dtype);
      for (size_t i = 0; i < n; ++i) {
        values.push_back(element_json(element_text(o.bytes, i, o.dtype), floating));
      }
      output["values"] = std::move(values);
    } else {
      output["values"] = texts_json(o.values);
    }
    outputs.push_back(std::move(output));
  }
  doc["outputs"] = std::move(outputs);
  doc["leaks"] = report.leak_lines;
  doc["misuse"] = report.misuse_lines;
  return write_json(doc);
}

std::string check_json(const std::string& file, const std::vector<MethodCheck>& checks,
                       const std::vector<std::vector<BufferOptimum>>& optimums,
                       const CheckedData* data,
                       const std::vector<std::vector<Json>>* overlap_probes) {
  size_t overlaps = 0, violations = 0;
  for (const MethodCheck& m : checks) {
    overlaps += m.overlaps.size();
    violations += m.device_violations.size();
  }
  Json doc = json_document();
  doc["file"] = file;
  doc["status"] = overlaps > 0 ? "overlap" : violations > 0 ? "device" : "clean";
  Json methods = Json::array();
  for (size_t mi = 0; mi < checks.size(); ++mi) {
    const MethodCheck& m = checks[mi];
    Json method;
    method["name"] = m.name;
    method["steps"] = m.num_steps;
    Json buffers = Json::array();
    for (size_t bi = 0; bi < m.buffers.size(); ++bi) {
      const BufferCheck& b = m.buffers[bi];
      Json buffer = {{"index", b.index},
                     {"size", b.size},
                     {"device", b.device.to_string()},
                     {"lower_bound", b.lower_bound},
                     {"planned_tensors", b.planned_tensors}};
      if (mi < optimums.size() && bi < optimums[mi].size()) {
        const BufferOptimum& o = optimums[mi][bi];
        buffer["optimum"] = {{"best", o.best},
                             {"proven_bound", o.proven_bound},
                             {"optimal", o.optimal()},
                             {"steps", o.steps}};
      }
      buffers.push_back(std::move(buffer));
    }
    method["buffers"] = std::move(buffers);
    Json overlap_list = Json::array();
    for (size_t oi = 0; oi < m.overlaps.size(); ++oi) {
      const Overlap& o = m.overlaps[oi];
      Json overlap = {{"buffer", o.buffer},
                      {"values", {o.value_a, o.value_b}},
                      {"bytes", {{o.a_begin, o.a_end}, {o.b_begin, o.b_end}}},
                      {"instructions", {o.first_step, o.last_step}},
                      {"text", describe_overlap(o)}};
      if (overlap_probes != nullptr && mi < overlap_probes->size() &&
          oi < (*overlap_probes)[mi].size()) {
        overlap["probe"] = (*overlap_probes)[mi][oi];
      }
      overlap_list.push_back(std::move(overlap));
    }
    method["overlaps"] = std::move(overlap_list);
    Json aliases = Json::array();
    for (size_t v = 0; v < m.alias_of.size(); ++v) {
      if (m.alias_of[v] >= 0) aliases.push_back({{"value", v}, {"base", m.alias_of[v]}});
    }
    method["aliases"] = std::move(aliases);
    Json mutable_buffers = Json::array();
    for (size_t v = 0; v < m.mutable_buffer.size(); ++v) {
      if (m.mutable_buffer[v]) mutable_buffers.push_back(v);
    }
    method["mutable_buffers"] = std::move(mutable_buffers);
    method["warnings"] = m.warnings;
    method["notes"] = m.notes;
    Json device_violations = Json::array();
    for (const DeviceViolation& d : m.device_violations) {
      device_violations.push_back({{"instruction", d.step},
                                   {"operation", d.instruction},
                                   {"value", d.value},
                                   {"message", d.message}});
    }
    method["device_violations"] = std::move(device_violations);
    if (data != nullptr && mi < data->methods.size()) {
      method["external"] = value_summaries_json(data->methods[mi].external);
    }
    methods.push_back(std::move(method));
  }
  doc["methods"] = std::move(methods);
  if (data != nullptr && data->files != nullptr) {
    Json files = Json::array();
    doc["data_files"] = data_files_json(*data->files);
  }
  return write_json(doc);
}

}  // namespace devplan::harness
