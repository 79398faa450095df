#include <harness/commands/command.h>

#include <fstream>
#include <iterator>

namespace devplan::harness {

Result<std::vector<uint8_t>> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error(ErrorCode::AccessFailed, "cannot open '" + path + "'");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return Error(ErrorCode::AccessFailed, "cannot read '" + path + "'");
  return bytes;
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
