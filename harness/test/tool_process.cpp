#include "tool_process.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace devplan::harness::testing {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

Scratch::Scratch() {
  char pattern[] = "/tmp/devplan_tool_XXXXXX";
  dir_ = ::mkdtemp(pattern);
  ::mkdir(path("folder").c_str(), 0755);
  std::ofstream empty(path("empty.pte"));
  std::ofstream(path("text.pte")) << "this is a text file, not an ExecuTorch program\n";
  std::ofstream(path("unreadable.pte")) << "secret";
  ::chmod(path("unreadable.pte").c_str(), 0);
  ::mkfifo(path("fifo.pte").c_str(), 0644);
  ::mkdir(path("read-only").c_str(), 0555);
}

Scratch::~Scratch() {
  const std::string command = "rm -rf '" + dir_ + "'";
  if (std::system(command.c_str()) != 0)
    std::fprintf(stderr, "could not remove %s\n", dir_.c_str());
}

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

}  // namespace devplan::harness::testing
