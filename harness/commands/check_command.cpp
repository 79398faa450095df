// devplan check FILE.pte [--data FILE.ptd]... [--budget-steps N] [--probe [--runtime R]] [--json]
#include <harness/commands/commands.h>
#include <harness/engine/data_files.h>
#include <harness/engine/program_image.h>
#include <harness/options/byte_size.h>
#include <harness/options/command_options.h>
#include <harness/options/planner_command_args.h>
#include <harness/output/json_reports.h>
#include <harness/services/check.h>
#include <harness/services/probe.h>
#include <harness/services/program_summary.h>
#include <harness/services/replan.h>
#include <runtime_ext/analysis/plan_check.h>
#include <runtime_ext/program/program.h>

#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include <harness/services/isolated_command.h>

namespace devplan::harness {
namespace {

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

void print_text(std::ostream& out, const std::string& file, const std::vector<MethodCheck>& checks,
                const std::vector<std::vector<BufferOptimum>>& optimums, const CheckedData* data,
                const ProbeReport* probe) {
  out << "file: " << file << "\n";
  size_t overlaps = 0, violations = 0;
  for (size_t mi = 0; mi < checks.size(); ++mi) {
    const MethodCheck& m = checks[mi];
    out << "method " << m.name << ": " << m.num_steps << " steps\n";
    for (size_t bi = 0; bi < m.buffers.size(); ++bi) {
      const BufferCheck& b = m.buffers[bi];
      const BufferOptimum& o = optimums[mi][bi];
      out << "  buffer " << b.index << ": " << cli::format_bytes(b.size) << " on "
          << b.device.to_string() << ", lower bound " << cli::format_bytes(b.lower_bound)
          << " (size/bound " << ratio_text(b.size, b.lower_bound) << "), " << b.planned_tensors
          << " planned tensors\n";
      out << "    optimum: ";
      if (o.optimal()) {
        out << cli::format_bytes(o.best) << " (proven";
      } else {
        out << "between " << cli::format_bytes(o.proven_bound) << " and "
            << cli::format_bytes(o.best) << " (the search's budget ran out";
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

}  // namespace

namespace {

// With --data: the files, and where each external tensor's data is.
Result<CheckedData> checked_data(const std::string& file, const std::vector<std::string>& paths) {
  CheckedData data;
  if (paths.empty()) return data;
  DEVPLAN_ASSIGN_OR_RETURN(std::shared_ptr<const DataFiles> files, map_data_files(paths));
  DEVPLAN_ASSIGN_OR_RETURN(Program program, load_program_file(file));
  DEVPLAN_ASSIGN_OR_RETURN(data.methods, summarize_program(program, files.get()));
  data.files = std::move(files);
  return data;
}

// check --probe: each overlap executed on its own (probe.h).
Result<ProbeReport> probe_overlaps(const std::string& file, const std::vector<std::string>& data,
                                   RuntimeKind runtime) {
  DEVPLAN_ASSIGN_OR_RETURN(ProgramImage image, ProgramImage::map(file));
  ProbeOptions options;
  options.data = data;
  options.runtime = runtime;
  options.confirm_overlaps = true;
  bool usage_error = false;
  return probe_program(image, options, &usage_error);
}

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

int check_parsed(const std::string& file, const std::vector<std::string>& data_paths, bool json,
                 int64_t budget_steps, bool probe, RuntimeKind runtime, std::ostream& out,
                 std::ostream& err);

}  // namespace

int check_command(const Args& args, std::ostream& out, std::ostream& err) {
  std::string file;
  std::vector<std::string> data_paths;
  bool json = false;
  bool probe = false;
  RuntimeKind runtime = RuntimeKind::Devplan;
  int64_t budget_steps = -1;
  std::unique_ptr<CLI::App> app =
      cli::make_command_app("check",
                            "Find planned tensors that share bytes while both are live, and "
                            "tensors whose device does not match their buffer's.");
  add_program_argument(*app, file);
  add_data_option(*app, data_paths);
  add_json_flag(*app, json);
  add_budget_steps_option(*app, &budget_steps,
                          "the exact search's budget per buffer for the optimum, in search nodes "
                          "(deterministic; default 1000000)");
  CLI::Option* probe_flag = app->add_flag(
      "--probe", probe,
      "execute each overlap on its own (one tensor moved to bytes of its own) and say "
      "whether the outputs change: confirmed in execution, or not observed");
  add_runtime_option(*app, runtime)
      ->description("with --probe: the engine that executes (default devplan)")
      ->needs(probe_flag);
  if (std::optional<int> done = cli::parse_command_line(*app, args, out, err)) return *done;
  if (!probe || runtime != RuntimeKind::Executorch) {
    return check_parsed(file, data_paths, json, budget_steps, probe, runtime, out, err);
  }
  return run_in_child_command(
      "check", "probing", file,
      [&](std::ostream& o) {
        return check_parsed(file, data_paths, json, budget_steps, probe, runtime, o, std::cerr);
      },
      out, err);
}

namespace {

int check_parsed(const std::string& file, const std::vector<std::string>& data_paths, bool json,
                 int64_t budget_steps, bool probe, RuntimeKind runtime, std::ostream& out,
                 std::ostream& err) {
  Result<std::vector<MethodCheck>> checks = check_program_file(file);
  Result<std::vector<std::vector<BufferOptimum>>> optimums =
      checks.ok() ? buffer_optimums(file, budget_steps)
                  : Result<std::vector<std::vector<BufferOptimum>>>(checks.error());
  Result<CheckedData> data =
      optimums.ok() ? checked_data(file, data_paths) : Result<CheckedData>(optimums.error());
  if (!data.ok()) {
    const Error error = data.error().with_context(file);
    if (json) {
      out << error_json(error) << "\n";
    } else {
      err << "devplan check: " << error.to_string() << "\n";
    }
    return cli::kExitError;
  }
  size_t findings = 0;
  for (const MethodCheck& m : *checks) findings += m.overlaps.size() + m.device_violations.size();
  std::optional<ProbeReport> probed;
  if (probe) {
    Result<ProbeReport> r = probe_overlaps(file, data_paths, runtime);
    if (!r.ok()) {
      const Error error = r.error().with_context(file + " (--probe)");
      if (json) {
        out << error_json(error) << "\n";
      } else {
        err << "devplan check: " << error.to_string() << "\n";
      }
      return cli::kExitError;
    }
    probed = std::move(r).value();
  }
  if (json) {
    const std::vector<std::vector<Json>> evidence =
        probed ? overlap_probes_json(*checks, *probed) : std::vector<std::vector<Json>>();
    out << check_json(file, *checks, *optimums, data->files ? &*data : nullptr,
                      probed ? &evidence : nullptr)
        << "\n";
  } else {
    print_text(out, file, *checks, *optimums, data->files ? &*data : nullptr,
               probed ? &*probed : nullptr);
  }
  return findings == 0 ? cli::kExitOk : cli::kExitFinding;
}

}  // namespace

}  // namespace devplan::harness
