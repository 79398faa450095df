#include <runtime_ext/program/extended_header.h>

#include <cstring>
#include <string>

namespace devplan {
namespace {

uint32_t read_u32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}

uint64_t read_u64(const uint8_t* p) {
  return static_cast<uint64_t>(read_u32(p)) | (static_cast<uint64_t>(read_u32(p + 4)) << 32);
}

void write_u32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

void write_u64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

Error invalid(const std::string& message) {
  return Error(ErrorCode::InvalidProgram, "extended header: " + message);
}

}  // namespace

constexpr char ExtendedHeader::kMagic[4];

Result<std::optional<ExtendedHeader>> ExtendedHeader::parse(const uint8_t* data, size_t size,
                                                            size_t file_size) {
  if (size > file_size) size = file_size;
  if (size < kOffset + sizeof(kMagic) || std::memcmp(data + kOffset, kMagic, sizeof(kMagic)) != 0) {
    return std::optional<ExtendedHeader>();
  }
  const std::string file = "the file has " + std::to_string(file_size) + " bytes";
  if (size < kOffset + 8) return invalid("cut off before its length field (" + file + ")");
  ExtendedHeader h;
  h.length = read_u32(data + kOffset + 4);
  if (h.length < kMinLength) {
    return invalid("length " + std::to_string(h.length) + " is less than the minimum " +
                   std::to_string(kMinLength));
  }
  const uint64_t header_end = kOffset + static_cast<uint64_t>(h.length);
  if (header_end > size) {
    return invalid("length " + std::to_string(h.length) + " runs past the end of the file (" +
                   file + ")");
  }
  h.program_size = read_u64(data + kOffset + 8);
  h.segment_base_offset = read_u64(data + kOffset + 16);
  h.segment_data_size = h.length >= 32 ? read_u64(data + kOffset + 24) : 0;

  if (h.program_size < header_end) {
    return invalid("program_size " + std::to_string(h.program_size) +
                   " is smaller than the headers (" + std::to_string(header_end) + " bytes)");
  }
  if (h.program_size > file_size) {
    return invalid("program_size " + std::to_string(h.program_size) +
                   " is larger than the file (truncated? " + file + ")");
  }
  // As ExecuTorch's Program::load: with a segment_data_size, the segments must end within the
  // file; a base of 0 means no segment data, and a base past the file's end fails only the
  // segments something uses (a base inside the program data is not checked either).
  if (h.segment_base_offset != 0 && h.segment_data_size != 0 &&
      (h.segment_base_offset > file_size ||
       h.segment_data_size > file_size - h.segment_base_offset)) {
    return invalid("segment_base_offset " + std::to_string(h.segment_base_offset) +
                   " + segment_data_size " + std::to_string(h.segment_data_size) +
                   " runs past the end of the file (truncated? " + file + ")");
  }
  return std::optional<ExtendedHeader>(h);
}

std::array<uint8_t, ExtendedHeader::kWrittenLength> ExtendedHeader::encode() const {
  std::array<uint8_t, kWrittenLength> out{};
  std::memcpy(out.data(), kMagic, sizeof(kMagic));
  write_u32(out.data() + 4, length);
  write_u64(out.data() + 8, program_size);
  write_u64(out.data() + 16, segment_base_offset);
  write_u64(out.data() + 24, segment_data_size);
  return out;
}

}  // namespace devplan
