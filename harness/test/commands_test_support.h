// Running devplan commands in-process from tests, and the paths of the test programs.
#pragma once

#include <string>
#include <vector>

#include <harness/commands/budget_command.h>
#include <harness/commands/check_command.h>
#include <harness/commands/diff_command.h>
#include <harness/commands/fuzz_command.h>
#include <harness/commands/inspect_command.h>
#include <harness/commands/plan_command.h>
#include <harness/commands/plot_command.h>
#include <harness/commands/probe_command.h>
#include <harness/commands/replan_command.h>
#include <harness/commands/report_command.h>
#include <harness/commands/run_command.h>
#include <harness/commands/simulate_command.h>
#include <harness/engine/engine.h>
#include <harness/services/memory_ceilings.h>
#include <harness/services/run.h>
#include <runtime_ext/program/file_data_loader.h>

namespace devplan::harness::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

using CommandFn = int (*)(const Args&, std::ostream&, std::ostream&);

CommandResult run(CommandFn command, const Args& args);

// A real ExecuTorch file in fixtures/executorch/.
std::string real_program(const std::string& name);
// fixtures/executorch/exporter/<name>: the programs of ExecuTorch 1.5.1's exporter.
std::string exported_program(const std::string& name);
// A fixture program written by the build ("device_add_cuda0").
std::string fixture_program(const std::string& name);
// How every JSON document starts: {"devplan_version":"0.1.0","schema_version":1, (the caller
// adds the rest of the document).
std::string json_header();

// device_add_cuda0 (fixtures/generator) with a wasteful host buffer: its output gets a slot of
// its own at 32 (48 bytes in all) instead of reusing input a's bytes after a's last use; replan
// brings the buffer to 32 bytes.
std::vector<uint8_t> wasteful_device_add();

// Writes `bytes` to a temporary file (removed at exit) and returns its path.
std::string temp_file(const std::vector<uint8_t>& bytes, const std::string& suffix = ".pte");

// Makes an empty temporary folder (removed with its contents at exit) and returns its path.
std::string temp_dir();

// Copies the file at `from` to `to` (replacing it), creating `to`'s folders.
void copy_file(const std::string& from, const std::string& to);

// The text of the file at `path` ("" when it cannot be read).
std::string file_text(const std::string& path);
// Its bytes.
std::vector<uint8_t> file_bytes(const std::string& path);

}  // namespace devplan::harness::testing
