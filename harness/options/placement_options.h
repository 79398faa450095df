// The values of `devplan simulate`'s buffer placement and device capacity options:
//
//   parse_placement("1=cuda:0")      -> {1, cuda:0}       (--place INDEX=DEVICE)
//   parse_capacity("cuda:0=1GiB")    -> {cuda:0, 2^30}    (--capacity DEVICE=SIZE)
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include <runtime_ext/core/device.h>
#include <runtime_ext/core/result.h>

namespace devplan::harness {

// "INDEX=DEVICE": a planned buffer's index in [0, INT32_MAX] and a device. InvalidArgument
// naming what is wrong otherwise.
Result<std::pair<uint32_t, Device>> parse_placement(const std::string& text);

// "DEVICE=SIZE": a device and a byte size (byte_size.h). InvalidArgument naming what is wrong
// otherwise.
Result<std::pair<Device, uint64_t>> parse_capacity(const std::string& text);

}  // namespace devplan::harness
