// ExtendedHeader: the optional `eh00` header at byte 8 of a program file, which says how much of
// the file is flatbuffer data and where the segment data lies.
//
//   Result<std::optional<ExtendedHeader>> h = ExtendedHeader::parse(bytes.data(), bytes.size());
//   if (!h.ok()) return h.error();        // InvalidProgram: truncated or out-of-range fields
//   if (*h) use((*h)->segment_base_offset);
//
// Layout (little-endian): magic "eh00" (byte 8), uint32 length counted from the magic, uint64
// program_size, uint64 segment_base_offset, and (length >= 32) uint64 segment_data_size.
#pragma once

#include <runtime_ext/core/result.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace devplan {

struct ExtendedHeader {
  // Where the header starts in the file, and its magic.
  static constexpr size_t kOffset = 8;
  static constexpr char kMagic[4] = {'e', 'h', '0', '0'};
  // Readers accept any length >= kMinLength; writers emit kWrittenLength.
  static constexpr uint32_t kMinLength = 24;
  static constexpr uint32_t kWrittenLength = 32;

  uint32_t length = kWrittenLength;
  uint64_t program_size = 0;         // flatbuffer bytes from offset 0, headers included
  uint64_t segment_base_offset = 0;  // from the file start; 0 = no segments
  uint64_t segment_data_size = 0;    // 0 when length < 32

  // Reads the header from `data`, the first `size` bytes of a file of `file_size` bytes
  // (size <= file_size; passing the whole file is fine). Returns nullopt when bytes 8..11 are
  // not the magic (no extended header). InvalidProgram, with a message naming the field, when
  // the header is cut off, its length is below kMinLength, program_size is smaller than the
  // headers or larger than the file, the segment base lies before program_size or past the
  // end, or the segment data runs past the end of the file (additions overflow-checked).
  static Result<std::optional<ExtendedHeader>> parse(const uint8_t* data, size_t size,
                                                     size_t file_size);

  // The kWrittenLength bytes of this header (magic first), as written at kOffset; `length` is
  // written as given.
  std::array<uint8_t, kWrittenLength> encode() const;
};

}  // namespace devplan
