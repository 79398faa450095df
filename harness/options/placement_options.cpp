#include <harness/options/placement_options.h>

#include <cerrno>
#include <cstdlib>

#include <harness/options/byte_size.h>

namespace devplan::harness {

Result<std::pair<uint32_t, Device>> parse_placement(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    return Error(ErrorCode::InvalidArgument, "expects INDEX=DEVICE, got '" + text + "'");
  }
  const std::string index = text.substr(0, eq);
  char* end = nullptr;
  errno = 0;
  const unsigned long long n = std::strtoull(index.c_str(), &end, 10);
  if (index[0] < '0' || index[0] > '9' || *end != '\0' || errno != 0 || n > INT32_MAX) {
    return Error(
        ErrorCode::InvalidArgument,
        "buffer index '" + index + "' is not a number in [0, " + std::to_string(INT32_MAX) + "]");
  }
  DEVPLAN_ASSIGN_OR_RETURN(Device device, parse_device(text.substr(eq + 1)));
  return std::make_pair(static_cast<uint32_t>(n), device);
}

Result<std::pair<Device, uint64_t>> parse_capacity(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    return Error(ErrorCode::InvalidArgument, "expects DEVICE=SIZE, got '" + text + "'");
  }
  DEVPLAN_ASSIGN_OR_RETURN(Device device, parse_device(text.substr(0, eq)));
  DEVPLAN_ASSIGN_OR_RETURN(uint64_t bytes, cli::parse_byte_size(text.substr(eq + 1)));
  return std::make_pair(device, bytes);
}

}  // namespace devplan::harness
