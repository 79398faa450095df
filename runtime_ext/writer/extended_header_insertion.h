// Putting the extended header into a finished flatbuffer (ahead of time: ProgramBuilder and the
// plan rewriter write program files with it).
//
//   std::vector<uint8_t> file = with_inserted_header(fbb.GetBufferPointer(), fbb.GetSize(), h);
//
// The header goes between the file identifier (bytes 4..7) and the rest of the flatbuffer.
// Everything after byte 8 moves by the header's size, which keeps every relative offset and
// (being a multiple of 16) every alignment; only the root offset at byte 0 grows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <runtime_ext/program/extended_header.h>

namespace devplan {

// The flatbuffer `fb_data` (`fb_size` bytes, at least 8) with `header` encoded at byte 8. The
// header's fields are written as given; program_size should be fb_size + kWrittenLength.
std::vector<uint8_t> with_inserted_header(const uint8_t* fb_data, size_t fb_size,
                                          const ExtendedHeader& header);

}  // namespace devplan
