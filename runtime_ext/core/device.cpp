#include <runtime_ext/core/device.h>

namespace devplan {

std::string device_type_name(DeviceType type) {
  switch (type) {
    case DeviceType::CPU:
      return "cpu";
    case DeviceType::CUDA:
      return "cuda";
  }
  return "unknown(" + std::to_string(static_cast<int>(type)) + ")";
}

bool is_known_device_type(int raw) {
  return raw == static_cast<int>(DeviceType::CPU) || raw == static_cast<int>(DeviceType::CUDA);
}

std::string Device::to_string() const {
  return device_type_name(type) + ":" + std::to_string(static_cast<int>(index));
}

Result<Device> parse_device(const std::string& text) {
  auto invalid = [&](const std::string& why) {
    return Error(ErrorCode::InvalidArgument, "invalid device '" + text + "': " + why);
  };
  const size_t colon = text.find(':');
  if (colon == std::string::npos) return invalid("expected TYPE:INDEX such as cpu:0 or cuda:1");
  const std::string type_text = text.substr(0, colon);
  const std::string index_text = text.substr(colon + 1);

  DeviceType type;
  if (type_text == "cpu") {
    type = DeviceType::CPU;
  } else if (type_text == "cuda") {
    type = DeviceType::CUDA;
  } else {
    return invalid("unknown device type '" + type_text + "' (expected cpu or cuda)");
  }

  if (index_text.empty() || index_text.size() > 3) {
    return invalid("index must be a number from 0 to 127");
  }
  for (char c : index_text) {
    if (c < '0' || c > '9') return invalid("index must be a number from 0 to 127");
  }
  if (index_text.size() > 1 && index_text[0] == '0') return invalid("index has leading zeros");
  const int index = std::stoi(index_text);
  if (index > kMaxDeviceIndex) return invalid("index must be a number from 0 to 127");
  if (type == DeviceType::CPU && index != 0) return invalid("the CPU has only index 0");
  return Device(type, static_cast<DeviceIndex>(index));
}

std::ostream& operator<<(std::ostream& os, Device device) { return os << device.to_string(); }

}  // namespace devplan
