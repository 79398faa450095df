// Every devplan command, given every kind of bad file argument, ends cleanly: exit 1 or 2 and a
// line naming the path and the reason, never a signal, never exit 0. The tool runs as its own
// process (so an abort or a crash shows as a signal), under ASan in the asan preset.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <harness/engine/engine.h>

namespace devplan::harness {
namespace {

struct ToolRun {
  bool signaled = false;
  int signal = 0;
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A scratch folder with one bad input of each kind, removed at the end.
class Scratch {
 public:
  Scratch() {
    char pattern[] = "/tmp/devplan_bad_input_XXXXXX";
    dir_ = ::mkdtemp(pattern);
    ::mkdir(path("folder").c_str(), 0755);
    std::ofstream(path("empty.pte"));
    std::ofstream(path("text.pte")) << "this is a text file, not an ExecuTorch program\n";
    std::ofstream(path("unreadable.pte")) << "secret";
    ::chmod(path("unreadable.pte").c_str(), 0);
    ::mkfifo(path("fifo.pte").c_str(), 0644);
    ::mkdir(path("read-only").c_str(), 0555);
  }
  ~Scratch() {
    const std::string command = "rm -rf '" + dir_ + "'";
    if (std::system(command.c_str()) != 0) std::fprintf(stderr, "could not remove %s\n", dir_.c_str());
  }
  std::string path(const std::string& name) const { return dir_ + "/" + name; }

 private:
  std::string dir_;
};

// Runs the devplan tool with `args`; stdout and stderr go through files (no pipe deadlock).
ToolRun run_tool(const Scratch& scratch, const std::vector<std::string>& args) {
  const std::string out_path = scratch.path("stdout.txt"), err_path = scratch.path("stderr.txt");
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(out, 1);
    ::dup2(err, 2);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(DEVPLAN_TOOL));
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::alarm(60);  // a hang (a FIFO read that blocks) becomes SIGALRM: a failure, not a stuck test
    ::execv(DEVPLAN_TOOL, argv.data());
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ToolRun run;
  run.signaled = WIFSIGNALED(status);
  run.signal = run.signaled ? WTERMSIG(status) : 0;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.out = slurp(out_path);
  run.err = slurp(err_path);
  return run;
}

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
                              << "'\nstderr:\n" << r.err << "stdout:\n" << r.out;
}

// Each command with FILE in the place of its input.
std::vector<std::vector<std::string>> input_commands(const Scratch& s, const std::string& file) {
  const std::string out = s.path("out.pte");
  std::vector<std::vector<std::string>> commands = {
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
  const char* name;          // the file's name in the scratch folder, or an absolute path
  const char* reason;        // what the error line must say about it
  const char* graph_reason;  // what `devplan plan` says, reading it as graph JSON
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
  const std::vector<std::string> plan = {"plan", file, "-o", s.path("out.pte")};
  expect_clean_failure(plan, run_tool(s, plan), file, input.graph_reason);
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
std::vector<std::vector<std::string>> output_commands(const std::string& program,
                                                      const std::string& graph,
                                                      const std::string& out,
                                                      bool folder_is_missing) {
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
  };
  if (!folder_is_missing) commands.push_back({"report", "--fuzz-cases", "0", "--out", out, program});
  return commands;
}

void check_output(const std::string& out_name, const std::string& reason, bool folder_is_missing) {
  Scratch s;
  const std::string program = std::string(DEVPLAN_SOURCE_DIR) + "/fixtures/executorch/add.pte";
  const std::string graph = s.path("graph.json");
  std::ofstream(graph) << R"({"tensors": [{"id": "x", "dtype": "float32", "shape": [2]}],
                              "inputs": ["x"], "outputs": ["x"]})";
  const std::string out = out_name[0] == '/' ? out_name : s.path(out_name);
  for (const std::vector<std::string>& args : output_commands(program, graph, out, folder_is_missing)) {
    std::vector<std::string> with_report = args;
    if (args[0] == "report" && args[4] != out) {  // --junit: keep the pictures in the scratch
      with_report.insert(with_report.begin() + 1, {"--out", s.path("report")});
    }
    expect_clean_failure(with_report, run_tool(s, with_report), out, reason);
  }
}

TEST(BadInputTest, AnOutputInAMissingFolder) {
  check_output("no-such-folder/out.file", "No such file or directory", true);
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
