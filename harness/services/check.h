// `devplan check`'s analysis of a program file: each method's plan checked for tensors that share
// bytes while live (runtime_ext/analysis/plan_check.h), each buffer's exact optimum, where the
// external tensors' data is (--data) and each overlap executed on its own (--probe).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <harness/engine/runtime_kind.h>
#include <harness/services/probe.h>
#include <harness/services/program_summary.h>
#include <harness/services/replan.h>
#include <runtime_ext/analysis/plan_check.h>
#include <runtime_ext/core/result.h>
#include <runtime_ext/program/data_file.h>

namespace devplan::harness {

// Checks every method of `program`.
Result<std::vector<MethodCheck>> check_program(const Program& program);
// The same for the program in `file`.
Result<std::vector<MethodCheck>> check_program_file(const std::string& file);

// Per method and buffer of the program: the exact planner's optimum or bounds (replan.h).
Result<std::vector<std::vector<BufferOptimum>>> buffer_optimums(const std::string& file,
                                                                int64_t budget_steps = -1);

// `check --data`: the data files and, per method, where each external tensor's data is.
struct CheckedData {
  std::shared_ptr<const DataFiles> files;
  std::vector<MethodSummary> methods;  // summarize_program(program, files), in method order
};

// The data files at `paths` and the program in `file` summarized against them; empty (no files)
// when `paths` is.
Result<CheckedData> checked_data(const std::string& file, const std::vector<std::string>& paths);

// `check --probe`: each overlap of the program in `file` executed on its own under `runtime`
// (probe.h, ProbeOptions::confirm_overlaps).
Result<ProbeReport> probe_overlaps(const std::string& file, const std::vector<std::string>& data,
                                   RuntimeKind runtime);

}  // namespace devplan::harness
