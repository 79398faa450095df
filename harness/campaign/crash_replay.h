// The last words of a fuzz campaign whose process dies: while a ScopedCrashReplay lives, a
// fatal-signal handler prints which case was running and the command that replays it, then
// lets the signal take its course (the handlers in place before are restored afterwards).
//
//   ScopedCrashReplay guard;                               // for the campaign
//   guard.set_case("devplan fuzz --seed 1 --case 7 --differential");  // before each case
//
// The message is prepared before each case, so the handler only writes bytes that are ready
// (async-signal-safe). One guard at a time per process.
#pragma once

#include <csignal>
#include <string>

namespace devplan::harness {

class ScopedCrashReplay {
 public:
  // Installs the handler for SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT.
  ScopedCrashReplay();
  ~ScopedCrashReplay();
  ScopedCrashReplay(const ScopedCrashReplay&) = delete;
  ScopedCrashReplay& operator=(const ScopedCrashReplay&) = delete;

  // The replay command of the case about to run.
  void set_case(const std::string& replay_command);
  // What the handler writes for `replay_command`.
  static std::string message(const std::string& replay_command);

 private:
  static constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
  struct sigaction previous_[5];
};

}  // namespace devplan::harness
