#include <harness/services/program_diff.h>

#include <harness/services/growth.h>
#include <harness/services/program_figures.h>
#include <runtime_ext/core/byte_count.h>
#include <runtime_ext/core/text_join.h>

namespace devplan::harness {
namespace {

Json optional_bytes(const std::optional<uint64_t>& bytes) {
  return bytes ? Json(*bytes) : Json(nullptr);
}

std::string optional_bytes_text(const std::optional<uint64_t>& bytes) {
  return bytes ? format_bytes(*bytes) : std::string("unproven");
}

Json buffer_json(const BufferFigures& b) {
  Json j = Json::object();
  j["device"] = b.device.to_string();
  j["size"] = b.size;
  j["planned_tensors"] = b.planned_tensors;
  return j;
}

std::string buffer_text(const BufferFigures& b) {
  return format_bytes(b.size) + " on " + b.device.to_string() + ", " +
         std::to_string(b.planned_tensors) + " planned tensors";
}

// Collects the changes of one method.
class MethodComparer {
 public:
  explicit MethodComparer(MethodDiff* diff) : diff_(diff) {}

  void add(std::string text, Json json) { diff_->changes.push_back({std::move(text), json}); }

  void buffers(const MethodFigures& before, const MethodFigures& now) {
    const size_t n = std::max(before.buffers.size(), now.buffers.size());
    for (size_t i = 0; i < n; ++i) {
      const std::string name = "buffer " + std::to_string(i);
      if (i >= now.buffers.size()) {
        add(name + ": removed (was " + buffer_text(before.buffers[i]) + ")",
            {{"what", "buffer.removed"},
             {"index", i},
             {"old", buffer_json(before.buffers[i])},
             {"new", nullptr}});
        continue;
      }
      if (i >= before.buffers.size()) {
        add(name + ": added (" + buffer_text(now.buffers[i]) + ")",
            {{"what", "buffer.added"},
             {"index", i},
             {"old", nullptr},
             {"new", buffer_json(now.buffers[i])}});
        continue;
      }
      buffer(name, i, before.buffers[i], now.buffers[i]);
    }
  }

  void peak_device_bytes(const MethodFigures& before, const MethodFigures& now) {
    for (const Device& device : devices_of(before.peak_device_bytes, now.peak_device_bytes)) {
      const uint64_t a = value_or_zero(before.peak_device_bytes, device);
      const uint64_t b = value_or_zero(now.peak_device_bytes, device);
      if (a == b) continue;
      add("peak device bytes on " + device.to_string() + ": " + byte_change_text(a, b),
          {{"what", "peak_device_bytes"}, {"device", device.to_string()}, {"old", a}, {"new", b}});
    }
  }

  void copies(const MethodFigures& before, const MethodFigures& now) {
    count("h2d copies", "copies.h2d", before.h2d_copies, now.h2d_copies);
    count("d2h copies", "copies.d2h", before.d2h_copies, now.d2h_copies);
  }

  void tensor_devices(const MethodFigures& before, const MethodFigures& now) {
    for (const auto& [value, device] : before.tensor_devices) {
      auto it = now.tensor_devices.find(value);
      if (it == now.tensor_devices.end() || it->second == device) continue;
      add("value " + std::to_string(value) + ": device " + device.to_string() + " -> " +
              it->second.to_string(),
          {{"what", "tensor.device"},
           {"value", value},
           {"old", device.to_string()},
           {"new", it->second.to_string()}});
    }
  }

  void values(const char* kind, const std::vector<ValueSummary>& before,
              const std::vector<ValueSummary>& now) {
    const size_t n = std::max(before.size(), now.size());
    for (size_t i = 0; i < n; ++i) {
      const std::optional<std::string> a =
          i < before.size() ? std::optional<std::string>(describe_value(before[i])) : std::nullopt;
      const std::optional<std::string> b =
          i < now.size() ? std::optional<std::string>(describe_value(now[i])) : std::nullopt;
      if (a == b) continue;
      add(std::string(kind) + " " + std::to_string(i) + ": " + a.value_or("(none)") + " -> " +
              b.value_or("(none)"),
          {{"what", std::string(kind) + ".value"},
           {"position", i},
           {"old", a ? Json(*a) : Json(nullptr)},
           {"new", b ? Json(*b) : Json(nullptr)}});
    }
  }

  void loads(RuntimeKind runtime, const LoadFigures& before, const LoadFigures& now) {
    const std::string engine = runtime_name(runtime);
    auto status = [](const LoadFigures& l) {
      if (!l.status.ok()) return l.status.to_string();
      return l.stand_ins.empty() ? std::string("loaded")
                                 : "loaded with placeholders for " + join(l.stand_ins, ", ");
    };
    const std::string a = status(before);
    const std::string b = status(now);
    if (a != b) {
      add(engine + " load: " + a + " -> " + b,
          {{"what", "load.status"}, {"runtime", engine}, {"old", a}, {"new", b}});
    }
    for (const Device& device : devices_of(before.devices, now.devices)) {
      const DeviceLoad x = value_or_zero(before.devices, device);
      const DeviceLoad y = value_or_zero(now.devices, device);
      const std::string where = engine + " load on " + device.to_string() + ": ";
      if (x.allocations != y.allocations) {
        add(where + "allocations " + count_change_text(x.allocations, y.allocations),
            {{"what", "load.allocations"},
             {"runtime", engine},
             {"device", device.to_string()},
             {"old", x.allocations},
             {"new", y.allocations}});
      }
      if (x.bytes != y.bytes) {
        add(where + "bytes " + byte_change_text(x.bytes, y.bytes), {{"what", "load.bytes"},
                                                                    {"runtime", engine},
                                                                    {"device", device.to_string()},
                                                                    {"old", x.bytes},
                                                                    {"new", y.bytes}});
      }
    }
    ledger_count(engine, "leaks", "load.leaks", before.leaks, now.leaks);
    ledger_count(engine, "misuse", "load.misuse", before.misuse, now.misuse);
  }

 private:
  template <typename Map>
  static typename Map::mapped_type value_or_zero(const Map& map, const Device& device) {
    auto it = map.find(device);
    return it == map.end() ? typename Map::mapped_type{} : it->second;
  }

  void buffer(const std::string& name, size_t i, const BufferFigures& a, const BufferFigures& b) {
    if (a.device != b.device) {
      add(name + ": device " + a.device.to_string() + " -> " + b.device.to_string(),
          {{"what", "buffer.device"},
           {"index", i},
           {"old", a.device.to_string()},
           {"new", b.device.to_string()}});
    }
    const std::string where = name + " (" + b.device.to_string() + "): ";
    const auto bytes = [&](const char* label, const char* what, uint64_t x, uint64_t y) {
      if (x == y) return;
      add(where + label + " " + byte_change_text(x, y),
          {{"what", what}, {"index", i}, {"device", b.device.to_string()}, {"old", x}, {"new", y}});
    };
    bytes("size", "buffer.size", a.size, b.size);
    if (a.planned_tensors != b.planned_tensors) {
      add(where + "planned tensors " + count_change_text(a.planned_tensors, b.planned_tensors),
          {{"what", "buffer.planned_tensors"},
           {"index", i},
           {"device", b.device.to_string()},
           {"old", a.planned_tensors},
           {"new", b.planned_tensors}});
    }
    bytes("lower bound", "buffer.lower_bound", a.lower_bound, b.lower_bound);
    if (a.optimum != b.optimum) {
      add(where + "optimum " +
              (a.optimum && b.optimum
                   ? byte_change_text(*a.optimum, *b.optimum)
                   : optional_bytes_text(a.optimum) + " -> " + optional_bytes_text(b.optimum)),
          {{"what", "buffer.optimum"},
           {"index", i},
           {"device", b.device.to_string()},
           {"old", optional_bytes(a.optimum)},
           {"new", optional_bytes(b.optimum)}});
    }
  }

  void count(const std::string& label, const char* what, uint64_t a, uint64_t b) {
    if (a == b) return;
    add(label + ": " + count_change_text(a, b), {{"what", what}, {"old", a}, {"new", b}});
  }

  void ledger_count(const std::string& engine, const char* label, const char* what, uint64_t a,
                    uint64_t b) {
    if (a == b) return;
    add(engine + " load: " + label + " " + count_change_text(a, b),
        {{"what", what}, {"runtime", engine}, {"old", a}, {"new", b}});
  }

  MethodDiff* diff_;
};

// An added or removed method: its buffers, one change each.
MethodDiff one_sided(const MethodFigures& m, MethodStatus status) {
  MethodDiff diff;
  diff.name = m.name;
  diff.status = status;
  const bool added = status == MethodStatus::Added;
  for (const BufferFigures& b : m.buffers) {
    diff.changes.push_back({"buffer " + std::to_string(b.index) + ": " + buffer_text(b),
                            {{"what", added ? "buffer.added" : "buffer.removed"},
                             {"index", b.index},
                             {"old", added ? Json(nullptr) : buffer_json(b)},
                             {"new", added ? buffer_json(b) : Json(nullptr)}}});
  }
  return diff;
}

const LoadFigures* find_load(const std::vector<LoadFigures>& loads, const std::string& method) {
  for (const LoadFigures& l : loads) {
    if (l.method == method) return &l;
  }
  return nullptr;
}

std::vector<std::string> method_names(const ProgramFigures& figures) {
  std::vector<std::string> names;
  for (const MethodFigures& m : figures.methods) names.push_back(m.name);
  return names;
}

// Peak device bytes per method and device that grew beyond `pct` (a new method's count too).
std::vector<Growth> peak_growth(const ProgramFigures& before, const ProgramFigures& now,
                                double pct) {
  std::vector<Growth> growth;
  for (const MethodFigures& m : now.methods) {
    const MethodFigures* old = before.find(m.name);
    for (const auto& [device, new_bytes] : m.peak_device_bytes) {
      uint64_t old_bytes = 0;
      if (old) {
        auto it = old->peak_device_bytes.find(device);
        if (it != old->peak_device_bytes.end()) old_bytes = it->second;
      }
      if (!grows_beyond(old_bytes, new_bytes, pct)) continue;
      Growth g{m.name, device, old_bytes, new_bytes, ""};
      g.text = "method " + m.name + ": peak device bytes on " + device.to_string() + " grew " +
               byte_change_text(old_bytes, new_bytes) + ", more than the " + tolerance_text(pct) +
               " allowed" + (old ? "" : " (a new method)");
      growth.push_back(std::move(g));
    }
  }
  return growth;
}

}  // namespace

const char* method_status_name(MethodStatus status) {
  switch (status) {
    case MethodStatus::Same:
      return "same";
    case MethodStatus::Changed:
      return "changed";
    case MethodStatus::Added:
      return "added";
    case MethodStatus::Removed:
      return "removed";
  }
  return "unknown";
}

size_t ProgramDiff::differences() const {
  size_t n = 0;
  for (const MethodDiff& m : methods) {
    n +=
        m.status == MethodStatus::Added || m.status == MethodStatus::Removed ? 1 : m.changes.size();
  }
  return n;
}

Result<ProgramDiff> diff_programs(const std::string& old_file, const std::string& new_file,
                                  const DiffOptions& options) {
  Result<ProgramFigures> before = program_figures(old_file, options.budget_steps);
  if (!before.ok()) return before.error().with_context(old_file);
  Result<ProgramFigures> now = program_figures(new_file, options.budget_steps);
  if (!now.ok()) return now.error().with_context(new_file);
  std::vector<LoadFigures> old_loads, new_loads;
  if (options.runtime) {
    Result<std::vector<LoadFigures>> a = load_figures(
        old_file, method_names(*before), *options.runtime, options.data_paths, options.device);
    if (!a.ok()) return a.error().with_context(old_file);
    Result<std::vector<LoadFigures>> b = load_figures(
        new_file, method_names(*now), *options.runtime, options.data_paths, options.device);
    if (!b.ok()) return b.error().with_context(new_file);
    old_loads = std::move(*a);
    new_loads = std::move(*b);
  }
  ProgramDiff diff;
  diff.old_file = old_file;
  diff.new_file = new_file;
  diff.options = options;
  for (const MethodFigures& a : before->methods) {
    const MethodFigures* b = now->find(a.name);
    if (!b) {
      diff.methods.push_back(one_sided(a, MethodStatus::Removed));
      continue;
    }
    MethodDiff m;
    m.name = a.name;
    MethodComparer compare(&m);
    compare.buffers(a, *b);
    compare.peak_device_bytes(a, *b);
    compare.copies(a, *b);
    compare.tensor_devices(a, *b);
    compare.values("input", a.inputs, b->inputs);
    compare.values("output", a.outputs, b->outputs);
    if (options.runtime) {
      compare.loads(*options.runtime, *find_load(old_loads, a.name), *find_load(new_loads, a.name));
    }
    m.status = m.changes.empty() ? MethodStatus::Same : MethodStatus::Changed;
    diff.methods.push_back(std::move(m));
  }
  for (const MethodFigures& b : now->methods) {
    if (!before->find(b.name)) diff.methods.push_back(one_sided(b, MethodStatus::Added));
  }
  if (options.fail_on_growth_pct) {
    diff.growth = peak_growth(*before, *now, *options.fail_on_growth_pct);
  }
  return diff;
}

}  // namespace devplan::harness
