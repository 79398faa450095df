// Editing a finished flatbuffer's bytes where they lie (ahead of time: the plan rewriter and the
// bundled-program rewriter). Internal to runtime_ext/writer.
//
//   size_t at = field_position(bytes.data(), table, fb::Tensor::VT_ALLOCATION_INFO);
//   put_scalar<uint32_t>(bytes, at, new_table - at);   // a uoffset points forward from itself
//
// Flatbuffers are little-endian, as is every host this builds for (flatbuffers assumes it too).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace devplan::writer_internal {

template <typename T>
void put_scalar(std::vector<uint8_t>& bytes, size_t at, T value) {
  std::memcpy(bytes.data() + at, &value, sizeof(T));
}

template <typename T>
T get_scalar(const uint8_t* at) {
  T value;
  std::memcpy(&value, at, sizeof(T));
  return value;
}

// Where the table at `table` stores the field of vtable slot `slot` (a generated VT_* constant),
// counted from `buffer`; the field must be present.
inline size_t field_position(const uint8_t* buffer, const void* table, uint16_t slot) {
  const auto* t = static_cast<const uint8_t*>(table);
  const uint8_t* vtable = t - get_scalar<int32_t>(t);
  return static_cast<size_t>(t + get_scalar<uint16_t>(vtable + slot) - buffer);
}

}  // namespace devplan::writer_internal
