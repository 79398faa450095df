// The `devplan` subcommands. Each takes its arguments (after the subcommand name) and the
// streams to write to, and returns the process exit code (cli::kExit*). They are functions,
// not processes, so tests run them in-process.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <harness/commands/device_environment.h>
#include <harness/commands/memory_ceilings.h>
#include <harness/commands/replan.h>
#include <harness/engine/engine.h>
#include <runtime_ext/core/result.h>
#include <runtime_ext/program/file_data_loader.h>  // read_file
#include <runtime_ext/program/program.h>

namespace devplan {
struct MethodCheck;  // runtime_ext/analysis/plan_check.h
}  // namespace devplan

namespace devplan::harness {

using Args = std::vector<std::string>;

int inspect_command(const Args& args, std::ostream& out, std::ostream& err);
int simulate_command(const Args& args, std::ostream& out, std::ostream& err);
int run_command(const Args& args, std::ostream& out, std::ostream& err);
int check_command(const Args& args, std::ostream& out, std::ostream& err);
int plot_command(const Args& args, std::ostream& out, std::ostream& err);
int fuzz_command(const Args& args, std::ostream& out, std::ostream& err);
int report_command(const Args& args, std::ostream& out, std::ostream& err);
int plan_command(const Args& args, std::ostream& out, std::ostream& err);
int replan_command(const Args& args, std::ostream& out, std::ostream& err);
int diff_command(const Args& args, std::ostream& out, std::ostream& err);
int budget_command(const Args& args, std::ostream& out, std::ostream& err);
int probe_command(const Args& args, std::ostream& out, std::ostream& err);

// Checks every method of the program in `file` (see runtime_ext/analysis/plan_check.h).
Result<std::vector<MethodCheck>> check_program_file(const std::string& file);

// Per method and buffer of the program: the exact planner's optimum or bounds (replan.h).
Result<std::vector<std::vector<BufferOptimum>>> buffer_optimums(const std::string& file,
                                                                int64_t budget_steps = -1);

// The plan picture of `file` (every method when `methods` is empty): SVG, or HTML when `html`.
Result<std::string> plot_program(const std::string& file, const std::vector<std::string>& methods,
                                 bool html);

// Writes `text` to `path` (replacing it). AccessFailed naming the path on failure.
Error write_file(const std::string& path, const std::string& text);

// write_file for `devplan <command>`: on failure prints "devplan <command>: <error>" on `err`
// and returns false.
bool write_output(const char* command, const std::string& path, const std::string& text,
                  std::ostream& err);

// The exit code once an output file could not be written: a finding (3) stays, anything else
// becomes 1.
int exit_after_write_failure(int code);

struct RunReport;
// Executes `method` (the first method when empty) of the program in `file` on `device`'s devices
// with `inputs` (see `devplan run --input`; missing inputs are ones). `usage_error` is
// set when the failure is the caller's (an unknown method, bad input text).
Result<RunReport> run_program(const std::string& file, const std::string& method,
                              const std::vector<std::string>& inputs, bool* usage_error,
                              const DeviceSetup& device = DeviceSetup(),
                              RuntimeKind runtime = RuntimeKind::Devplan,
                              const MemoryCeilings& ceilings = MemoryCeilings(),
                              const std::vector<std::string>& data_paths = {});

// Loads the program in `path` from a memory-mapped file, read in place (no copy of the bytes). The
// errors of MmapDataLoader::open, then Program::load's.
Result<Program> load_program_file(const std::string& path);

}  // namespace devplan::harness
