// Helpers shared by the program tests.
#pragma once

#include <runtime_ext/program/file_data_loader.h>
#include <runtime_ext/program/program.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace devplan::testing_util {

// The real ExecuTorch program files committed under fixtures/executorch.
inline std::string executorch_fixture_path(const std::string& file_name) {
  return std::string(DEVPLAN_SOURCE_DIR) + "/fixtures/executorch/" + file_name;
}

inline uint32_t read_u32_le(const std::vector<uint8_t>& b, size_t at) {
  return static_cast<uint32_t>(b[at]) | (static_cast<uint32_t>(b[at + 1]) << 8) |
         (static_cast<uint32_t>(b[at + 2]) << 16) | (static_cast<uint32_t>(b[at + 3]) << 24);
}

inline uint64_t read_u64_le(const std::vector<uint8_t>& b, size_t at) {
  return static_cast<uint64_t>(read_u32_le(b, at)) |
         (static_cast<uint64_t>(read_u32_le(b, at + 4)) << 32);
}

inline void write_u32_le(std::vector<uint8_t>* b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) (*b)[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

inline void write_u64_le(std::vector<uint8_t>* b, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) (*b)[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

inline std::vector<uint8_t> float_bytes(std::initializer_list<float> values) {
  std::vector<uint8_t> out(values.size() * sizeof(float));
  size_t i = 0;
  for (float v : values) std::memcpy(out.data() + sizeof(float) * i++, &v, sizeof(float));
  return out;
}

inline std::vector<float> as_floats(Span<const uint8_t> bytes) {
  std::vector<float> out(bytes.size() / sizeof(float));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(float));
  return out;
}

}  // namespace devplan::testing_util
