#include <runtime_ext/program/regular_file.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace devplan {
namespace {

// Why a file of this type is not a program file.
std::string file_kind_problem(mode_t mode) {
  if (S_ISDIR(mode)) return errno_text(EISDIR);
  if (S_ISFIFO(mode)) return "not a regular file (a FIFO)";
  if (S_ISCHR(mode)) return "not a regular file (a character device)";
  if (S_ISBLK(mode)) return "not a regular file (a block device)";
  if (S_ISSOCK(mode)) return "not a regular file (a socket)";
  return "not a regular file";
}

}  // namespace

std::string errno_text(int err) { return std::generic_category().message(err); }

Result<RegularFile> open_regular_file(const std::string& path) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is rejected below.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    return Error(ErrorCode::AccessFailed, "cannot open '" + path + "': " + errno_text(errno));
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return Error(ErrorCode::AccessFailed, "cannot stat '" + path + "': " + errno_text(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error(ErrorCode::AccessFailed,
                 "cannot read '" + path + "': " + file_kind_problem(st.st_mode));
  }
  return RegularFile{fd, static_cast<size_t>(st.st_size)};
}

}  // namespace devplan
