#include <harness/report/json_reports.h>

#include <harness/cli/args.h>
#include <harness/report/json_writer.h>

namespace devplan::harness {
namespace {

void write_error(JsonWriter& w, const Error& error) {
  w.key("error").begin_object();
  w.key("code").value(error_code_name(error.code()));
  w.key("message").value(error.message());
  w.end_object();
}

void write_sizes(JsonWriter& w, const std::vector<int32_t>& sizes) {
  w.begin_array();
  for (int32_t s : sizes) w.value(static_cast<int64_t>(s));
  w.end_array();
}

void write_value_summary(JsonWriter& w, const ValueSummary& v) {
  w.begin_object();
  w.key("value").value(static_cast<int64_t>(v.value_index));
  w.key("type").value(value_tag_name(v.tag));
  if (v.tag == ValueTag::Tensor) {
    w.key("dtype").value(scalar_type_name(v.dtype));
    w.key("sizes");
    write_sizes(w, v.sizes);
    w.key("nbytes").value(v.nbytes);
    w.key("device").value(v.device.to_string());
    w.key("storage").value(v.storage);
    if (v.legacy_host) w.key("legacy_host").value(true);
    if (!v.fully_qualified_name.empty()) w.key("fully_qualified_name").value(v.fully_qualified_name);
  }
  w.end_object();
}

void write_strings(JsonWriter& w, const std::vector<std::string>& items) {
  w.begin_array();
  for (const std::string& s : items) w.value(s);
  w.end_array();
}

// The fields every ledger entry has: seq, device, size, alignment, owner.
void write_allocation_fields(JsonWriter& w, const AllocationRecord& a) {
  w.key("seq").value(a.seq);
  w.key("device").value(a.device.to_string());
  w.key("size").value(static_cast<uint64_t>(a.size));
  w.key("alignment").value(static_cast<uint64_t>(a.alignment));
  w.key("owner").value(a.owner);
}

}  // namespace

std::string error_json(const Error& error) {
  JsonWriter w;
  w.begin_object();
  write_error(w, error);
  w.end_object();
  return w.str();
}

std::string inspect_json(const std::string& file, const std::vector<MethodSummary>& methods) {
  JsonWriter w;
  w.begin_object().key("file").value(file).key("methods").begin_array();
  for (const MethodSummary& m : methods) {
    w.begin_object();
    w.key("name").value(m.name);
    w.key("buffers").begin_array();
    for (const BufferSummary& b : m.buffers) {
      w.begin_object();
      w.key("index").value(static_cast<uint64_t>(b.index));
      w.key("size").value(b.size);
      w.key("device").value(b.device.to_string());
      w.key("planned_tensors").value(static_cast<uint64_t>(b.planned_tensors));
      w.key("max_end").value(b.max_end);
      w.end_object();
    }
    w.end_array();
    w.key("values").value(static_cast<uint64_t>(m.num_values));
    w.key("instructions").value(static_cast<uint64_t>(m.num_instructions));
    w.key("operators");
    write_strings(w, m.operators);
    w.key("delegates");
    write_strings(w, m.delegates);
    w.key("inputs").begin_array();
    for (const ValueSummary& v : m.inputs) write_value_summary(w, v);
    w.end_array();
    w.key("outputs").begin_array();
    for (const ValueSummary& v : m.outputs) write_value_summary(w, v);
    w.end_array();
    w.key("external").begin_array();
    for (const ValueSummary& v : m.external) write_value_summary(w, v);
    w.end_array();
    w.end_object();
  }
  w.end_array().end_object();
  return w.str();
}

std::string simulate_json(const SimulationResult& r, int exit_code) {
  JsonWriter w;
  w.begin_object();
  const char* status = exit_code == cli::kExitOk ? "ok"
                       : !r.leaks.empty()        ? "leak"
                       : !r.misuse.empty()       ? "misuse"
                                                 : "error";
  w.key("status").value(status);
  w.key("runtime").value(runtime_name(r.runtime));
  w.key("methods").begin_array();
  for (const MethodOutcome& m : r.methods) {
    w.begin_object();
    w.key("name").value(m.name);
    w.key("status").value(m.status.ok() ? "ok" : error_code_name(m.status.code()));
    if (!m.status.ok()) w.key("message").value(m.status.message());
    w.key("buffers").begin_array();
    for (const BufferOutcome& b : m.buffers) {
      w.begin_object();
      w.key("index").value(static_cast<uint64_t>(b.index));
      w.key("size").value(b.size);
      w.key("device").value(b.device.to_string());
      w.key("allocated").value(b.allocated);
      w.end_object();
    }
    w.end_array();
    w.end_object();
  }
  w.end_array();
  w.key("allocations").begin_array();
  for (const AllocationRecord& a : r.allocations) {
    w.begin_object();
    write_allocation_fields(w, a);
    w.key("freed").value(!a.live);
    w.end_object();
  }
  w.end_array();
  w.key("failed_allocations").begin_array();
  for (const FailedAllocation& f : r.failed_allocations) {
    w.begin_object();
    w.key("seq").value(f.seq);
    w.key("device").value(f.device.to_string());
    w.key("size").value(static_cast<uint64_t>(f.size));
    w.key("alignment").value(static_cast<uint64_t>(f.alignment));
    w.key("owner").value(f.owner);
    w.key("code").value(error_code_name(f.code));
    w.key("reason").value(f.reason);
    w.end_object();
  }
  w.end_array();
  w.key("leaks").begin_array();
  for (size_t i = 0; i < r.leaks.size(); ++i) {
    const AllocationRecord& a = r.leaks[i];
    w.begin_object();
    write_allocation_fields(w, a);
    w.key("report").value(i < r.leak_lines.size() ? r.leak_lines[i] : format_allocation(a));
    w.end_object();
  }
  w.end_array();
  w.key("misuse").begin_array();
  for (const MisuseRecord& m : r.misuse) {
    w.begin_object();
    w.key("kind").value(misuse_kind_name(m.kind));
    w.key("device").value(m.device.to_string());
    w.key("allocation_seq").value(m.allocation_seq);
    w.key("message").value(m.message);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return w.str();
}

// The empty lists of a simulation that has no result (an error or an abort).
static void write_empty_simulation_lists(JsonWriter& w) {
  for (const char* list : {"methods", "allocations", "failed_allocations", "leaks", "misuse"}) {
    w.key(list).begin_array().end_array();
  }
}

std::string simulate_abort_json(const std::string& message) {
  JsonWriter w;
  w.begin_object();
  w.key("status").value("abort");
  w.key("runtime").value(runtime_name(RuntimeKind::Executorch));
  w.key("error").begin_object();
  w.key("code").value("Aborted");
  w.key("message").value(message);
  w.end_object();
  write_empty_simulation_lists(w);
  w.end_object();
  return w.str();
}

std::string simulate_error_json(const Error& error, RuntimeKind runtime) {
  JsonWriter w;
  w.begin_object();
  w.key("status").value("error");
  w.key("runtime").value(runtime_name(runtime));
  write_error(w, error);
  write_empty_simulation_lists(w);
  w.end_object();
  return w.str();
}

std::string run_json(const RunReport& report) {
  JsonWriter w;
  w.begin_object();
  w.key("method").value(report.method);
  w.key("runtime").value(runtime_name(report.runtime));
  w.key("outputs").begin_array();
  for (const OutputValues& o : report.outputs) {
    w.begin_object();
    w.key("index").value(static_cast<uint64_t>(o.index));
    w.key("type").value(value_tag_name(o.tag));
    if (o.tag == ValueTag::Tensor) {
      w.key("dtype").value(scalar_type_name(o.dtype));
      w.key("sizes");
      write_sizes(w, o.sizes);
      w.key("device").value(o.device.to_string());
    }
    w.key("values").begin_array();
    for (const std::string& v : o.values) {
      // Formatted numbers are valid JSON numbers; booleans are written as such.
      if (v == "true" || v == "false") {
        w.value(v == "true");
      } else if (v == "nan" || v == "-nan" || v == "inf" || v == "-inf") {
        w.null();
      } else {
        w.raw_number(v);
      }
    }
    w.end_array();
    w.end_object();
  }
  w.end_array();
  w.key("leaks");
  write_strings(w, report.leak_lines);
  w.key("misuse");
  write_strings(w, report.misuse_lines);
  w.end_object();
  return w.str();
}

std::string check_json(const std::string& file, const std::vector<MethodCheck>& checks) {
  size_t overlaps = 0, violations = 0;
  for (const MethodCheck& m : checks) {
    overlaps += m.overlaps.size();
    violations += m.device_violations.size();
  }
  JsonWriter w;
  w.begin_object();
  w.key("file").value(file);
  w.key("status").value(overlaps > 0 ? "overlap" : violations > 0 ? "device" : "clean");
  w.key("methods").begin_array();
  for (const MethodCheck& m : checks) {
    w.begin_object();
    w.key("name").value(m.name);
    w.key("steps").value(static_cast<int64_t>(m.num_steps));
    w.key("buffers").begin_array();
    for (const BufferCheck& b : m.buffers) {
      w.begin_object();
      w.key("index").value(static_cast<uint64_t>(b.index));
      w.key("size").value(b.size);
      w.key("device").value(b.device.to_string());
      w.key("lower_bound").value(b.lower_bound);
      w.key("planned_tensors").value(static_cast<uint64_t>(b.planned_tensors));
      w.end_object();
    }
    w.end_array();
    w.key("overlaps").begin_array();
    for (const Overlap& o : m.overlaps) {
      w.begin_object();
      w.key("buffer").value(static_cast<uint64_t>(o.buffer));
      w.key("values").begin_array().value(static_cast<int64_t>(o.value_a)).value(static_cast<int64_t>(o.value_b)).end_array();
      w.key("bytes").begin_array();
      w.begin_array().value(o.a_begin).value(o.a_end).end_array();
      w.begin_array().value(o.b_begin).value(o.b_end).end_array();
      w.end_array();
      w.key("instructions").begin_array().value(static_cast<int64_t>(o.first_step)).value(static_cast<int64_t>(o.last_step)).end_array();
      w.end_object();
    }
    w.end_array();
    w.key("aliases").begin_array();
    for (size_t v = 0; v < m.alias_of.size(); ++v) {
      if (m.alias_of[v] < 0) continue;
      w.begin_object();
      w.key("value").value(static_cast<uint64_t>(v));
      w.key("base").value(static_cast<int64_t>(m.alias_of[v]));
      w.end_object();
    }
    w.end_array();
    w.key("mutable_buffers").begin_array();
    for (size_t v = 0; v < m.mutable_buffer.size(); ++v) {
      if (m.mutable_buffer[v]) w.value(static_cast<uint64_t>(v));
    }
    w.end_array();
    w.key("warnings").begin_array();
    for (const std::string& warning : m.warnings) w.value(warning);
    w.end_array();
    w.key("device_violations").begin_array();
    for (const DeviceViolation& d : m.device_violations) {
      w.begin_object();
      w.key("instruction").value(static_cast<int64_t>(d.step));
      w.key("operation").value(d.instruction);
      w.key("value").value(static_cast<int64_t>(d.value));
      w.key("message").value(d.message);
      w.end_object();
    }
    w.end_array();
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return w.str();
}

}  // namespace devplan::harness
