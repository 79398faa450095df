// Device: where a buffer or tensor lives, as a type (fixed by the file format) and an index.
//
//   Result<Device> d = parse_device("cuda:1");   // Device{CUDA, 1}
//   d->to_string();                              // "cuda:1"
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

#include <runtime_ext/core/result.h>

namespace devplan {

// Values are those of the program file's DeviceType enum.
enum class DeviceType : int8_t {
  CPU = 0,
  CUDA = 1,
};

constexpr int kNumDeviceTypes = 2;

// Device index within a type; the file stores it as a signed byte.
using DeviceIndex = int8_t;

constexpr DeviceIndex kMaxDeviceIndex = 127;

// "cpu" / "cuda"; "unknown(N)" for a value outside the enum.
std::string device_type_name(DeviceType type);

// True when `raw` is one of the DeviceType values above.
bool is_known_device_type(int raw);

struct Device {
  DeviceType type = DeviceType::CPU;
  DeviceIndex index = 0;

  constexpr Device() = default;
  constexpr Device(DeviceType t, DeviceIndex i = 0) : type(t), index(i) {}

  static constexpr Device cpu() { return Device(DeviceType::CPU, 0); }
  static constexpr Device cuda(DeviceIndex i) { return Device(DeviceType::CUDA, i); }

  constexpr bool is_cpu() const { return type == DeviceType::CPU; }

  // "cpu:0", "cuda:1".
  std::string to_string() const;

  friend constexpr bool operator==(Device a, Device b) {
    return a.type == b.type && a.index == b.index;
  }
  friend constexpr bool operator!=(Device a, Device b) { return !(a == b); }
  // Orders CPU first, then by (type, index): the planner's buffer numbering.
  friend constexpr bool operator<(Device a, Device b) {
    return a.type != b.type ? a.type < b.type : a.index < b.index;
  }
};

// Parses exactly the form to_string() writes: lower-case type, ':', a decimal index in
// [0, 127] without sign or leading zeros; `cpu` only with index 0. Anything else is
// InvalidArgument naming the text.
Result<Device> parse_device(const std::string& text);

// Parses whatever to_string() writes, also for devices a program may name that parse_device
// refuses (a record of a program, not a user's choice): "unknown(5):0", "cuda:-1". Otherwise
// parse_device's error.
Result<Device> parse_any_device(const std::string& text);

std::ostream& operator<<(std::ostream& os, Device device);

}  // namespace devplan

template <>
struct std::hash<devplan::Device> {
  size_t operator()(devplan::Device d) const noexcept {
    return (static_cast<size_t>(static_cast<uint8_t>(d.type)) << 8) | static_cast<uint8_t>(d.index);
  }
};
