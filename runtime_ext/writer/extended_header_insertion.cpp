#include <runtime_ext/writer/extended_header_insertion.h>

namespace devplan {

std::vector<uint8_t> with_inserted_header(const uint8_t* fb_data, size_t fb_size,
                                          const ExtendedHeader& header) {
  const auto encoded = header.encode();
  std::vector<uint8_t> out;
  out.reserve(fb_size + encoded.size());
  out.insert(out.end(), fb_data, fb_data + ExtendedHeader::kOffset);
  out.insert(out.end(), encoded.begin(), encoded.end());
  out.insert(out.end(), fb_data + ExtendedHeader::kOffset, fb_data + fb_size);
  uint32_t root_offset = 0;
  for (int i = 0; i < 4; ++i) root_offset |= static_cast<uint32_t>(out[i]) << (8 * i);
  root_offset += static_cast<uint32_t>(encoded.size());
  for (int i = 0; i < 4; ++i) out[i] = static_cast<uint8_t>(root_offset >> (8 * i));
  return out;
}

}  // namespace devplan
