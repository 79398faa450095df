#include <executorch_testing/probed_method.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace devplan::executorch_testing {
namespace {

struct ToolOutcome {
  int exit_code = -1;  // -1: did not exit normally
  std::string output;  // standard output and error, interleaved
  std::string error;   // why it could not be run
};

// Runs `argv` (argv[0] a path, or a name looked up on the PATH) and collects what it prints.
ToolOutcome run_tool(const std::vector<std::string>& argv) {
  ToolOutcome outcome;
  int fds[2];
  if (::pipe(fds) != 0) {
    outcome.error = std::string("pipe: ") + std::strerror(errno);
    return outcome;
  }
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    outcome.error = std::string("fork: ") + std::strerror(errno);
    ::close(fds[0]);
    ::close(fds[1]);
    return outcome;
  }
  if (pid == 0) {
    ::dup2(fds[1], 1);
    ::dup2(fds[1], 2);
    ::close(fds[0]);
    ::close(fds[1]);
    ::execvp(args[0], args.data());
    const std::string message = "cannot run " + argv[0] + ": " + std::strerror(errno) + "\n";
    (void)!::write(2, message.data(), message.size());
    ::_exit(127);
  }
  ::close(fds[1]);
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fds[0], buffer, sizeof(buffer));
    if (n > 0) {
      outcome.output.append(buffer, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  return outcome;
}

bool executable(const std::string& path) {
  return !path.empty() && ::access(path.c_str(), X_OK) == 0;
}

std::string command_text(const std::vector<std::string>& argv) {
  std::string text;
  for (const std::string& a : argv) text += (text.empty() ? "" : " ") + a;
  return text;
}

}  // namespace

std::string devplan_tool(const ProbeMethodOptions& options) {
  if (!options.tool.empty()) return options.tool;
  if (const char* env = std::getenv("DEVPLAN_TOOL"); env != nullptr && *env != '\0') return env;
  if (executable(DEVPLAN_INSTALLED_TOOL)) return DEVPLAN_INSTALLED_TOOL;
  if (executable(DEVPLAN_BUILD_TREE_TOOL)) return DEVPLAN_BUILD_TREE_TOOL;
  return "devplan";
}

::testing::AssertionResult probed_clean(const std::string& program, const std::string& method,
                                        const ProbeMethodOptions& options) {
  std::vector<std::string> argv = {
      devplan_tool(options), "probe",         program,    "--method",    method,
      "--runtime",           options.runtime, "--device", options.device};
  for (const std::string& input : options.inputs) argv.insert(argv.end(), {"--input", input});
  for (const std::string& data : options.data) argv.insert(argv.end(), {"--data", data});
  if (!options.inject_bug.empty()) argv.insert(argv.end(), {"--inject-bug", options.inject_bug});
  const ToolOutcome tool = run_tool(argv);
  const std::string command = command_text(argv);
  if (!tool.error.empty()) {
    return ::testing::AssertionFailure() << "devplan probe could not run: " << tool.error;
  }
  const bool probed = tool.output.find("method " + method + ": probed (") != std::string::npos;
  if (tool.exit_code == 0 && probed) return ::testing::AssertionSuccess();
  ::testing::AssertionResult failure = ::testing::AssertionFailure();
  if (tool.exit_code == 3) {
    failure << "devplan probe found what is wrong with method " << method << " of " << program
            << ":\n";
  } else if (tool.exit_code == 0) {
    failure << "devplan probe did not probe method " << method << " of " << program << ":\n";
  } else {
    failure << "devplan probe failed (exit code " << tool.exit_code << ") on method " << method
            << " of " << program << ":\n";
  }
  return failure << tool.output << "command: " << command;
}

}  // namespace devplan::executorch_testing
