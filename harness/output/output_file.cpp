#include <harness/output/output_file.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

#include <harness/values/exit_codes.h>
#include <runtime_ext/program/regular_file.h>

namespace devplan::harness {

bool write_output(const char* command, const std::string& path, const std::string& text,
                  std::ostream& err) {
  Error e = write_file(path, text);
  if (e.ok()) return true;
  err << "devplan " << command << ": " << e.to_string() << "\n";
  return false;
}

int exit_after_write_failure(int code) {
  return code == cli::kExitFinding ? cli::kExitFinding : cli::kExitError;
}

Error write_file(const std::string& path, const std::string& text) {
  auto failed = [&path](int err) {
    return Error(ErrorCode::AccessFailed, "cannot write '" + path + "': " + errno_text(err));
  };
  // O_NONBLOCK: a FIFO without a reader fails (ENXIO) instead of hanging.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NONBLOCK, 0666);
  if (fd < 0) return failed(errno);
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);  // blocking writes from here
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      return failed(err);
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) return failed(errno);
  return Error::success();
}

}  // namespace devplan::harness
