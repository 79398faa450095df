// The `--json` documents of the devplan commands. Their shapes are part of the tool's
// interface (documented in the README); keep them stable.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <harness/engine/run_report.h>
#include <harness/json/json.h>
#include <harness/services/check.h>
#include <harness/services/program_summary.h>
#include <harness/services/replan.h>
#include <harness/services/simulation.h>
#include <runtime_ext/analysis/plan_check.h>
#include <runtime_ext/program/data_file.h>

namespace devplan::harness {

// {"error": {"code": "InvalidProgram", "message": "..."}}
std::string error_json(const Error& error);

// {"file": "...", "methods": [{"name", "buffers": [{"index", "size", "device",
//  "planned_tensors", "max_end"}], "values", "instructions", "operators", "delegates",
//  "inputs", "outputs"}]}
std::string inspect_json(const std::string& file, const std::vector<MethodSummary>& methods);
// `inspect` of a data file (.ptd): {"file", "kind": "data", "version", "size",
// "segment_base_offset", "segment_data_size", "segments": [{"index", "offset", "size"}],
// "tensors": [{"key", "dtype", "sizes", "dim_order", "bytes", "segment", "offset", "alignment"}]}.
std::string data_file_json(const DataFile& file);
// [{"file", "tensors", "bytes" (their data), "size" (the file's)}], for check and report.
Json data_files_json(const DataFiles& files);

// {"status": "ok"|"error"|"leak"|"misuse", "methods": [...], "allocations": [...],
//  "failed_allocations": [...], "leaks": [...], "misuse": [...]}
std::string simulate_json(const SimulationResult& result, int exit_code);

// A program that does not load: the simulate shape with status "error" and the error.
std::string simulate_error_json(const Error& error, RuntimeKind runtime = RuntimeKind::Devplan);
// The JSON of a simulation whose engine aborted (status "abort", error code "Aborted").
std::string simulate_abort_json(const std::string& message);

// {"method": "forward", "outputs": [{"index", "type", "dtype", "sizes", "device", "values"}],
//  "leaks": [...], "misuse": [...]}
// A tensor of more than kFullOutputElements elements gets "summary" instead of "values" unless
// `full` (run --full).
std::string run_json(const RunReport& report, bool full = false);

// {"file", "status": "clean"|"overlap", "methods": [{"name", "steps", "buffers": [{"index",
//  "size", "device", "lower_bound", "planned_tensors"}], "overlaps": [{"buffer", "values": [a, b],
//  "bytes": [[a_begin, a_end], [b_begin, b_end]], "instructions": [first, last]}]}]}
// `optimums`, per method and buffer (or empty): the exact planner's optimum or bounds, as
// "optimum" {best, proven_bound, optimal, steps} on each buffer.
// `data` (check --data, services/check.h): the data files and where each external tensor's
// data is.
// `overlap_probes` (check --probe): per method, per overlap, the "probe" object of each overlap.
std::string check_json(const std::string& file, const std::vector<MethodCheck>& checks,
                       const std::vector<std::vector<BufferOptimum>>& optimums = {},
                       const CheckedData* data = nullptr,
                       const std::vector<std::vector<Json>>* overlap_probes = nullptr);

}  // namespace devplan::harness
