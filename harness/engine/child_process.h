// Runs a piece of work in a forked child process, so that an abort inside it (ExecuTorch calls
// abort() on some invalid programs) is a reported finding instead of the harness going down.
//
//   ChildOutcome c = run_in_child([&](std::string* out) { *out = "..."; return 0; });
//   if (c.signaled()) report("aborted: " + c.describe());
//
// The child's standard error (file descriptor 2, where ExecuTorch's fatal log lines go) and the
// text it returns through `out` come back to the parent. The child ends with _exit, so it runs
// no destructors of the parent's state.
#pragma once

#include <functional>
#include <string>

namespace devplan::harness {

struct ChildOutcome {
  bool started = false;  // fork and pipes worked
  int exit_code = -1;    // when the child exited
  int signal = 0;        // when it was killed by a signal
  std::string out;       // what the body returned through `out`
  std::string err;       // everything the child wrote to standard error

  bool signaled() const { return signal != 0; }
  // "signal 6 (Aborted)" or "exit code 1"; plus the last line of err when there is one.
  std::string describe() const;
};

ChildOutcome run_in_child(const std::function<int(std::string* out)>& body);

}  // namespace devplan::harness
