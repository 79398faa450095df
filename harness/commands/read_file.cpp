#include <harness/commands/command.h>

#include <sys/stat.h>

#include <fstream>
#include <iterator>

namespace devplan::harness {

Result<std::vector<uint8_t>> read_file(const std::string& path) {
  struct stat info;
  if (::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
    return Error(ErrorCode::AccessFailed, "cannot read '" + path + "': it is a directory");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error(ErrorCode::AccessFailed, "cannot open '" + path + "'");
  try {
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) return Error(ErrorCode::AccessFailed, "cannot read '" + path + "'");
    return bytes;
  } catch (const std::ios_base::failure& e) {  // libstdc++ throws from a failed read()
    return Error(ErrorCode::AccessFailed, "cannot read '" + path + "': " + e.what());
  }
}

Error write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return Error(ErrorCode::AccessFailed, "cannot write '" + path + "'");
  out << text;
  out.close();
  if (!out) return Error(ErrorCode::AccessFailed, "cannot write '" + path + "'");
  return Error::success();
}

}  // namespace devplan::harness
