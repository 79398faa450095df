#include <harness/campaign/crash_replay.h>

#include <unistd.h>

#include <cstring>

namespace devplan::harness {
namespace {

// Two buffers, so the handler never reads one that is being rewritten.
char g_messages[2][512];
volatile sig_atomic_t g_ready = -1;  // which buffer holds the current message

void on_fatal_signal(int signal) {
  const int ready = g_ready;
  if (ready >= 0) {
    const char* text = g_messages[ready];
    ssize_t ignored = ::write(2, text, std::strlen(text));
    (void)ignored;
  }
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

}  // namespace

ScopedCrashReplay::ScopedCrashReplay() {
  struct sigaction action;
  std::memset(&action, 0, sizeof action);
  action.sa_handler = on_fatal_signal;
  sigemptyset(&action.sa_mask);
  for (size_t i = 0; i < 5; ++i) ::sigaction(kSignals[i], &action, &previous_[i]);
}

ScopedCrashReplay::~ScopedCrashReplay() {
  g_ready = -1;
  for (size_t i = 0; i < 5; ++i) ::sigaction(kSignals[i], &previous_[i], nullptr);
}

std::string ScopedCrashReplay::message(const std::string& replay_command) {
  return "\ndevplan fuzz: FINDING: the process died while running a case (a crash or an abort "
         "inside an engine); replay: " +
         replay_command + "\n";
}

void ScopedCrashReplay::set_case(const std::string& replay_command) {
  const int next = g_ready == 0 ? 1 : 0;
  const std::string text = message(replay_command);
  std::strncpy(g_messages[next], text.c_str(), sizeof(g_messages[next]) - 1);
  g_messages[next][sizeof(g_messages[next]) - 1] = '\0';
  g_ready = next;
}

}  // namespace devplan::harness
