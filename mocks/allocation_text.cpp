#include <mocks/allocation_text.h>

namespace devplan {

std::string bytes_on_device(size_t nbytes, const Device& device) {
  return std::to_string(nbytes) + " bytes on " + device.to_string();
}

Error negative_index_error(const std::string& name, const char* method, const Device& device) {
  return Error(ErrorCode::InvalidArgument,
               name + "::" + method + ": device " + device.to_string() + " has a negative index");
}

}  // namespace devplan
