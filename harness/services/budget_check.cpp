#include <harness/services/budget_check.h>

#include <algorithm>

#include <harness/services/growth.h>
#include <runtime_ext/core/byte_count.h>
#include <runtime_ext/core/text_join.h>

#include <cstdio>

namespace devplan::harness {
namespace {

// "1.0000"
std::string ratio_text(double ratio) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.4f", ratio);
  return buf;
}

// "(+16 B, +33.33%)" with "; tolerance 5%" before the ')' when `tolerance` is given.
std::string with_tolerance(std::string change, const std::string& tolerance) {
  if (tolerance.empty() || change.empty() || change.back() != ')') return change;
  change.pop_back();
  return change + "; tolerance " + tolerance + ")";
}

// Builds a FindingDetail: Detail("buffer.size").index(1).device(d).change(48, 64).
class Detail {
 public:
  explicit Detail(const char* what) { d_.what = what; }
  Detail& index(uint64_t i) {
    d_.index = i;
    return *this;
  }
  Detail& runtime(const std::string& engine) {
    d_.runtime = engine;
    return *this;
  }
  Detail& device(const Device& device) {
    d_.device = device.to_string();
    return *this;
  }
  Detail& old_value(FindingValue v) {
    d_.old_value = std::move(v);
    return *this;
  }
  Detail& new_value(FindingValue v) {
    d_.new_value = std::move(v);
    return *this;
  }
  Detail& change(FindingValue before, FindingValue now) {
    return old_value(std::move(before)).new_value(std::move(now));
  }
  FindingDetail done() const { return d_; }

 private:
  FindingDetail d_;
};

class BudgetComparer {
 public:
  BudgetComparer(const std::string& program, const BudgetTolerances& tolerances,
                 std::vector<BudgetFinding>* findings)
      : program_(program), tolerances_(tolerances), findings_(findings) {}

  void method(const std::string& name, const BudgetMethod& before, const BudgetMethod& now) {
    method_ = name;
    buffers(before.buffers, now.buffers);
    per_device("planned bytes on ", "planned_bytes", before.planned_bytes, now.planned_bytes);
    per_device("peak device bytes on ", "peak_device_bytes", before.peak_device_bytes,
               now.peak_device_bytes);
    plan_ratio(before.plan_ratio, now.plan_ratio);
    loads(before.loads, now.loads);
  }

  void added_method(const std::string& name, const BudgetMethod& now) {
    method_ = name;
    uint64_t bytes = 0;
    for (const BudgetBuffer& b : now.buffers) bytes += b.size;
    const size_t n = now.buffers.size();
    add(FindingKind::Grew,
        "is a new method, not in the budget (" + std::to_string(n) +
            (n == 1 ? " planned buffer, " : " planned buffers, ") + format_bytes(bytes) + ")",
        Detail("method.added").change(nullptr, bytes));
  }

  void removed_method(const std::string& name) {
    method_ = name;
    add(FindingKind::Shrank, "was removed (the budget has it)",
        Detail("method.removed").change(nullptr, nullptr));
  }

 private:
  // One finding.
  void add(FindingKind kind, const std::string& what_changed, const Detail& detail) {
    BudgetFinding f;
    f.kind = kind;
    f.method = method_;
    f.text = program_ + (method_.empty() ? "" : " " + method_) + ": " + what_changed;
    f.detail = detail.done();
    findings_->push_back(std::move(f));
  }

  // A figure that may grow by `pct` percent: bytes when `bytes`, else a count.
  void figure(const std::string& label, Detail detail, uint64_t before, uint64_t now, double pct,
              bool bytes) {
    if (before == now) return;
    const std::string change =
        bytes ? byte_change_text(before, now) : count_change_text(before, now);
    detail.change(before, now);
    if (now < before) {
      add(FindingKind::Shrank, label + " shrank " + change, detail);
    } else if (grows_beyond(before, now, pct)) {
      add(FindingKind::Grew, label + " grew " + with_tolerance(change, tolerance_text(pct)),
          detail);
    } else {
      add(FindingKind::Within,
          label + " grew " + change + ", within the " + tolerance_text(pct) + " tolerance", detail);
    }
  }

  void buffers(const std::vector<BudgetBuffer>& before, const std::vector<BudgetBuffer>& now) {
    const size_t n = std::max(before.size(), now.size());
    for (size_t i = 0; i < n; ++i) {
      const std::string name = "buffer " + std::to_string(i);
      if (i >= now.size()) {
        add(FindingKind::Shrank,
            name + " (" + before[i].device.to_string() + ", " + format_bytes(before[i].size) +
                ") was removed",
            Detail("buffer.removed")
                .index(i)
                .device(before[i].device)
                .change(before[i].size, nullptr));
        continue;
      }
      if (i >= before.size()) {
        // A new empty buffer takes no memory: noted, not a failure.
        add(now[i].size > 0 ? FindingKind::Grew : FindingKind::Note,
            name + " (" + now[i].device.to_string() + ") is new: " + format_bytes(now[i].size),
            Detail("buffer.added").index(i).device(now[i].device).change(nullptr, now[i].size));
        continue;
      }
      if (before[i].device != now[i].device) {
        add(now[i].size > 0 ? FindingKind::Grew : FindingKind::Note,
            name + " moved from " + before[i].device.to_string() + " to " +
                now[i].device.to_string() + " (" +
                (before[i].size == now[i].size
                     ? format_bytes(now[i].size)
                     : format_bytes(before[i].size) + " -> " + format_bytes(now[i].size)) +
                ")",
            Detail("buffer.device")
                .index(i)
                .change(before[i].device.to_string(), now[i].device.to_string()));
        continue;
      }
      figure(name + " (" + now[i].device.to_string() + ")",
             Detail("buffer.size").index(i).device(now[i].device), before[i].size, now[i].size,
             tolerances_.bytes_pct, true);
    }
  }

  void per_device(const std::string& label, const char* what,
                  const std::map<Device, uint64_t>& before, const std::map<Device, uint64_t>& now) {
    for (const Device& d : devices_of(before, now)) {
      auto a = before.find(d);
      auto b = now.find(d);
      figure(label + d.to_string(), Detail(what).device(d), a == before.end() ? 0 : a->second,
             b == now.end() ? 0 : b->second, tolerances_.bytes_pct, true);
    }
  }

  void plan_ratio(double before, double now) {
    if (before == now) return;
    Detail detail = Detail("plan_ratio").change(before, now);
    char pct[48];
    std::snprintf(pct, sizeof(pct), "%+.2f%%", before > 0 ? 100.0 * (now / before - 1.0) : 0.0);
    const std::string change = ratio_text(before) + " -> " + ratio_text(now) + " (" + pct;
    const std::string label = "plan ratio (planned bytes over the lower bound)";
    // Both ratios are rounded to 4 decimals; half a unit of the last one is not growth.
    const double allowed = before * (1.0 + tolerances_.bytes_pct / 100.0) + 0.00005;
    if (now < before) {
      add(FindingKind::Shrank, label + " shrank " + change + ")", detail);
    } else if (now > allowed) {
      add(FindingKind::Grew,
          label + " grew " + change + "; tolerance " + tolerance_text(tolerances_.bytes_pct) + ")",
          detail);
    } else {
      add(FindingKind::Within,
          label + " grew " + change + "), within the " + tolerance_text(tolerances_.bytes_pct) +
              " tolerance",
          detail);
    }
  }

  void loads(const std::map<std::string, BudgetLoad>& before,
             const std::map<std::string, BudgetLoad>& now) {
    for (const auto& [engine, recorded] : before) {
      auto it = now.find(engine);
      if (it == now.end()) {
        add(FindingKind::Note,
            engine + " load: recorded in the budget, but this build has no " + engine +
                " engine; not checked",
            Detail("load.engine").runtime(engine).change(true, false));
        continue;
      }
      load(engine, recorded, it->second);
    }
    for (const auto& [engine, measured] : now) {
      if (before.count(engine) > 0) continue;
      add(FindingKind::Note,
          engine + " load: not in the budget (recorded by a build without it); not checked",
          Detail("load.engine").runtime(engine).change(false, true));
    }
  }

  void load(const std::string& engine, const BudgetLoad& before, const BudgetLoad& now) {
    if (now.loaded && !now.placeholders.empty()) {
      add(FindingKind::Note,
          engine + " load: with placeholders for " + join(now.placeholders, ", ") +
              " (they cannot run here; the figures are the load's)",
          Detail("load.placeholders").runtime(engine).new_value(now.placeholders));
    }
    if (before.loaded && !now.loaded) {
      add(FindingKind::Grew, engine + " load failed (it loaded when recorded): " + now.error,
          Detail("load.status").runtime(engine).change(std::string("loaded"), now.error));
      return;
    }
    if (!before.loaded && now.loaded) {
      add(FindingKind::Shrank, engine + " load now succeeds (it failed when recorded)",
          Detail("load.status")
              .runtime(engine)
              .change(std::string("failed"), std::string("loaded")));
    }
    for (const Device& d : devices_of(before.allocations, now.allocations)) {
      auto a = before.allocations.find(d);
      auto b = now.allocations.find(d);
      const DeviceLoad x = a == before.allocations.end() ? DeviceLoad{} : a->second;
      const DeviceLoad y = b == now.allocations.end() ? DeviceLoad{} : b->second;
      const std::string where = engine + " load on " + d.to_string() + ": ";
      figure(where + "allocations", Detail("load.allocations").runtime(engine).device(d),
             x.allocations, y.allocations, tolerances_.allocations_pct, false);
      figure(where + "bytes allocated", Detail("load.bytes").runtime(engine).device(d), x.bytes,
             y.bytes, tolerances_.bytes_pct, true);
    }
    // A probe finding not recorded fails, whatever the tolerances; one recorded and gone is
    // news.
    for (const std::string& line : now.probe_findings) {
      if (std::find(before.probe_findings.begin(), before.probe_findings.end(), line) ==
          before.probe_findings.end()) {
        add(FindingKind::Grew, engine + " probe: " + line + " (not in the budget)",
            Detail("probe").runtime(engine).new_value(line));
      }
    }
    for (const std::string& line : before.probe_findings) {
      if (std::find(now.probe_findings.begin(), now.probe_findings.end(), line) ==
          now.probe_findings.end()) {
        add(FindingKind::Shrank, engine + " probe: no longer finds " + line,
            Detail("probe").runtime(engine).old_value(line));
      }
    }
    // Any leak or misuse more than recorded is a failure, whatever the tolerances.
    figure(engine + " load: leaks", Detail("load.leaks").runtime(engine), before.leaks, now.leaks,
           0, false);
    figure(engine + " load: misuse", Detail("load.misuse").runtime(engine), before.misuse,
           now.misuse, 0, false);
  }

  const std::string& program_;
  const BudgetTolerances& tolerances_;
  std::vector<BudgetFinding>* findings_;
  std::string method_;
};

}  // namespace

const char* finding_kind_name(FindingKind kind) {
  switch (kind) {
    case FindingKind::Grew:
      return "grew";
    case FindingKind::Within:
      return "within";
    case FindingKind::Shrank:
      return "shrank";
    case FindingKind::Note:
      return "note";
  }
  return "unknown";
}

std::vector<BudgetFinding> check_against_budget(const std::string& program,
                                                const BudgetProgram& recorded,
                                                const BudgetProgram& measured,
                                                const BudgetTolerances& tolerances) {
  std::vector<BudgetFinding> findings;
  BudgetComparer compare(program, tolerances, &findings);
  for (const auto& [name, now] : measured.methods) {
    auto it = recorded.methods.find(name);
    if (it == recorded.methods.end()) {
      compare.added_method(name, now);
    } else {
      compare.method(name, it->second, now);
    }
  }
  for (const auto& [name, before] : recorded.methods) {
    if (measured.methods.count(name) == 0) compare.removed_method(name);
  }
  return findings;
}

}  // namespace devplan::harness
