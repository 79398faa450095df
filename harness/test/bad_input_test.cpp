// Every devplan command, given every kind of bad file argument, ends cleanly: exit 1 or 2 and a
// line naming the path and the reason, never a signal, never exit 0. The tool runs as its own
// process (so an abort or a crash shows as a signal), under ASan in the asan preset.
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <harness/engine/engine.h>

#include "tool_process.h"

namespace devplan::harness {
namespace {

using testing::run_tool;
using testing::Scratch;
using testing::ToolRun;

std::string joined(const std::vector<std::string>& args) {
  std::string text = "devplan";
  for (const std::string& a : args) text += " " + a;
  return text;
}

// Whether `line` holds one of the '|'-separated alternatives of `reasons`.
bool names_reason(const std::string& line, const std::string& reasons) {
  size_t start = 0;
  while (true) {
    const size_t bar = reasons.find('|', start);
    if (line.find(reasons.substr(start, bar - start)) != std::string::npos) return true;
    if (bar == std::string::npos) return false;
    start = bar + 1;
  }
}

// The run ended cleanly, with exit 1 or 2 and one line that names `path` and `reason`.
void expect_clean_failure(const std::vector<std::string>& args, const ToolRun& r,
                          const std::string& path, const std::string& reason) {
  const std::string what = joined(args);
  ASSERT_FALSE(r.signaled) << what << ": killed by signal " << r.signal << "\n" << r.err;
  EXPECT_TRUE(r.exit_code == 1 || r.exit_code == 2) << what << ": exit " << r.exit_code;
  std::istringstream lines(r.err + r.out);
  std::string line, found;
  while (std::getline(lines, line)) {
    if (line.find(path) != std::string::npos && names_reason(line, reason)) found = line;
  }
  EXPECT_FALSE(found.empty()) << what << ": no line names '" << path << "' and '" << reason
                              << "'\nstderr:\n"
                              << r.err << "stdout:\n"
                              << r.out;
}

// Each command with FILE in the place of its input.
std::vector<std::vector<std::string>> input_commands(const Scratch& s, const std::string& file) {
  const std::string out = s.path("out.pte");
  const std::string real = std::string(DEVPLAN_SOURCE_DIR) + "/fixtures/executorch/add.pte";
  std::vector<std::vector<std::string>> commands = {
      {"diff", file, real},
      {"diff", real, file, "--json"},
      {"budget", "record", file, "-o", s.path("budget.json")},
      {"inspect", file},
      {"inspect", file, "--json"},
      {"simulate", file},
      {"simulate", file, "--json"},
      {"run", file},
      {"check", file},
      {"plot", file},
      {"replan", file, "-o", out},
      {"report", "--fuzz-cases", "0", "--out", s.path("report"), file},
  };
  if (executorch_available()) {
    commands.push_back({"simulate", file, "--runtime", "executorch"});
    commands.push_back({"run", file, "--runtime", "executorch"});
  }
  return commands;
}

struct InputCase {
  const char* name;               // the file's name in the scratch folder, or an absolute path
  const char* reason;             // what the error line must say about it
  const char* graph_reason;       // what `devplan plan` says, reading it as graph JSON
  const char* executorch_reason;  // what ExecuTorch's loader says, under --runtime executorch
};

const InputCase kInputs[] = {
    {"folder", "Is a directory", "Is a directory", "Is a directory"},
    {"empty.pte", "fewer than the 8-byte header", "JSON parse error",
     "ExecuTorch: loading the program failed"},
    {"/dev/null", "not a regular file (a character device)",
     "not a regular file (a character device)", "not a regular file (a character device)"},
    {"missing.pte", "No such file or directory", "No such file or directory",
     "No such file or directory"},
    {"unreadable.pte", "Permission denied", "Permission denied", "Permission denied"},
    {"fifo.pte", "not a regular file (a FIFO)", "not a regular file (a FIFO)",
     "not a regular file (a FIFO)"},
    {"text.pte", "not a program", "JSON parse error", "ExecuTorch: loading the program failed"},
};

void check_input(const InputCase& input) {
  Scratch s;
  const std::string file = input.name[0] == '/' ? input.name : s.path(input.name);
  if (std::string(input.name) == "unreadable.pte" && ::geteuid() == 0) {
    GTEST_SKIP() << "running as root: file permissions do not stop root from reading";
  }
  for (const std::vector<std::string>& args : input_commands(s, file)) {
    const bool executorch = args.back() == "executorch";
    expect_clean_failure(args, run_tool(s, args), file,
                         executorch ? input.executorch_reason : input.reason);
  }
  // Read as JSON: a graph, and a budget.
  const std::string real = std::string(DEVPLAN_SOURCE_DIR) + "/fixtures/executorch/add.pte";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"plan", file, "-o", s.path("out.pte")},
        std::vector<std::string>{"budget", "check", file, real}}) {
    expect_clean_failure(args, run_tool(s, args), file, input.graph_reason);
  }
}

TEST(BadInputTest, ADirectory) { check_input(kInputs[0]); }
TEST(BadInputTest, AnEmptyFile) { check_input(kInputs[1]); }
TEST(BadInputTest, DevNull) { check_input(kInputs[2]); }
TEST(BadInputTest, AMissingPath) { check_input(kInputs[3]); }
TEST(BadInputTest, AnUnreadableFile) { check_input(kInputs[4]); }
TEST(BadInputTest, AFifo) { check_input(kInputs[5]); }
TEST(BadInputTest, AFileThatIsNotAProgram) { check_input(kInputs[6]); }

// Each command with OUT in the place of one of its output paths. `report --out DIR` creates DIR
// with its parents (like mkdir -p), so a missing folder is not an error there.
std::vector<std::vector<std::string>> output_commands(
    const std::string& program, const std::string& second_program, const std::string& budget,
    const std::string& graph, const std::string& out, bool folder_is_missing) {
  std::vector<std::vector<std::string>> commands = {
      {"simulate", program, "--junit", out},
      {"simulate", program, "--timeline-svg", out},
      {"simulate", program, "--trace", out},
      {"plot", program, "-o", out},
      {"plot", program, "--trace", out},
      {"plan", graph, "-o", out},
      {"replan", program, "-o", out},
      {"report", "--fuzz-cases", "0", "--junit", out, program},
      {"fuzz", "--cases", "1", "--junit", out},
      {"diff", program, second_program, "--junit", out},
      {"budget", "record", program, "-o", out},
      {"budget", "check", budget, program, "--junit", out},
  };
  if (!folder_is_missing)
    commands.push_back({"report", "--fuzz-cases", "0", "--out", out, program});
  return commands;
}

void check_output(const std::string& out_name, const std::string& reason, bool folder_is_missing) {
  Scratch s;
  const std::string program = std::string(DEVPLAN_SOURCE_DIR) + "/fixtures/executorch/add.pte";
  const std::string graph = s.path("graph.json");
  std::ofstream(graph) << R"({"tensors": [{"id": "x", "dtype": "float32", "shape": [2]}],
                              "inputs": ["x"], "outputs": ["x"]})";
  const std::string second =
      std::string(DEVPLAN_SOURCE_DIR) + "/fixtures/executorch/linear_no_constant_segment.pte";
  const std::string budget = s.path("budget.json");
  const ToolRun recorded = run_tool(s, {"budget", "record", program, "-o", budget});
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  const std::string out = out_name[0] == '/' ? out_name : s.path(out_name);
  for (const std::vector<std::string>& args :
       output_commands(program, second, budget, graph, out, folder_is_missing)) {
    std::vector<std::string> with_report = args;
    if (args[0] == "report" && args[3] == "--junit") {  // keep the pictures in the scratch
      with_report.insert(with_report.begin() + 1, {"--out", s.path("report")});
    }
    expect_clean_failure(with_report, run_tool(s, with_report), out, reason);
  }
}

TEST(BadInputTest, AnOutputInAMissingFolder) {
  check_output("no-such-folder/out.file", "No such file or directory", true);
}

// /dev/full opens and then fails every write (ENOSPC): each output must say so, not report a
// file it did not write. (Its last argument leaves out `report --out`, which needs a folder;
// `budget record` will not overwrite what is not a budget.)
TEST(BadInputTest, AnOutputOnAFullDevice) {
  check_output("/dev/full", "No space left on device|which is not a devplan budget", true);
}

TEST(BadInputTest, AnOutputInAReadOnlyFolder) {
  // Root writes anywhere on an ordinary file system; sysfs refuses new files even to root.
  if (::geteuid() == 0) {
    // Creating a file there is EACCES; creating a folder (report --out) is EPERM.
    check_output("/sys/devplan-out.file", "Permission denied|Operation not permitted", false);
  } else {
    check_output("read-only/out.file", "Permission denied", false);
  }
}

}  // namespace
}  // namespace devplan::harness
