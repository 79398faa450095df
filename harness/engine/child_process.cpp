#include <harness/engine/child_process.h>

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>

namespace devplan::harness {
namespace {

void write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

}  // namespace

std::string ChildOutcome::describe() const {
  std::string text;
  if (!started) return "the child process could not be started";
  if (signal != 0) {
    const char* name = ::strsignal(signal);
    text = "signal " + std::to_string(signal) + " (" + (name ? name : "?") + ")";
  } else {
    text = "exit code " + std::to_string(exit_code);
  }
  std::string last = err;
  while (!last.empty() && last.back() == '\n') last.pop_back();
  const size_t nl = last.rfind('\n');
  if (nl != std::string::npos) last = last.substr(nl + 1);
  if (!last.empty()) text += ": " + last;
  return text;
}

ChildOutcome run_in_child(const std::function<int(std::string* out)>& body) {
  ChildOutcome outcome;
  int out_pipe[2];
  int err_pipe[2];
  if (::pipe(out_pipe) != 0) return outcome;
  if (::pipe(err_pipe) != 0) {
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    return outcome;
  }
  // Whatever the parent has buffered would otherwise be written a second time by the child.
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) ::close(fd);
    return outcome;
  }
  if (pid == 0) {
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    ::dup2(err_pipe[1], 2);
    std::string out;
    const int code = body(&out);
    write_all(out_pipe[1], out);
    ::_exit(code);
  }
  outcome.started = true;
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&outcome.out, &outcome.err};
  int open_fds = 2;
  char chunk[4096];
  while (open_fds > 0) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = ::read(fds[i].fd, chunk, sizeof chunk);
      if (n > 0) {
        sinks[i]->append(chunk, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (const pollfd& p : fds) {
    if (p.fd >= 0) ::close(p.fd);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
  return outcome;
}

}  // namespace devplan::harness
