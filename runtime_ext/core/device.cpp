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

namespace {

// A decimal in [-128, 127] without leading zeros or '+', as std::to_string writes an int8.
bool parse_small_int(const std::string& text, int* out) {
  const size_t digits = text.size() - (text.empty() || text[0] != '-' ? 0 : 1);
  if (digits == 0 || digits > 3) return false;
  for (size_t i = text.size() - digits; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
  }
  if (digits > 1 && text[text.size() - digits] == '0') return false;
  if (text == "-0") return false;
  const int v = std::stoi(text);
  if (v < -128 || v > 127) return false;
  *out = v;
  return true;
}

}  // namespace

Result<Device> parse_any_device(const std::string& text) {
  Result<Device> plain = parse_device(text);
  if (plain.ok()) return plain;
  const size_t colon = text.rfind(':');
  int type = 0, index = 0;
  bool ok = colon != std::string::npos && parse_small_int(text.substr(colon + 1), &index);
  const std::string type_text = ok ? text.substr(0, colon) : "";
  if (type_text == "cpu") {
    type = static_cast<int>(DeviceType::CPU);
  } else if (type_text == "cuda") {
    type = static_cast<int>(DeviceType::CUDA);
  } else {
    const std::string prefix = "unknown(";
    ok = ok && type_text.size() > prefix.size() + 1 &&
         type_text.compare(0, prefix.size(), prefix) == 0 && type_text.back() == ')' &&
         parse_small_int(type_text.substr(prefix.size(), type_text.size() - prefix.size() - 1),
                         &type) &&
         !is_known_device_type(type);
  }
  if (!ok) return plain.error();
  const Device d(static_cast<DeviceType>(type), static_cast<DeviceIndex>(index));
  return d;
}

std::ostream& operator<<(std::ostream& os, Device device) { return os << device.to_string(); }

}  // namespace devplan
