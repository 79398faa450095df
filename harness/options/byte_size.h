// Byte counts as people write and read them.
//
//   parse_byte_size("512KiB")  -> 524288        parse_byte_size("64MB") -> 64000000
//   format_bytes(1056768)      -> "1056768 B (1.0 MiB)"     format_bytes(768) -> "768 B"
//
// Units: B; KiB, MiB, GiB, TiB (powers of 1024); KB, MB, GB, TB (powers of 1000). Units are
// case-insensitive ("1gib" works); k/K, m/M, g/G, t/T alone mean the binary units, like
// `numfmt --from=iec`. A fraction is allowed when it names whole bytes ("1.5KiB" = 1536).
#pragma once

#include <cstdint>
#include <string>

#include <runtime_ext/core/byte_count.h>
#include <runtime_ext/core/result.h>

namespace devplan::cli {

// InvalidArgument naming the text and the accepted form for anything else, including values
// above UINT64_MAX and fractions of a byte.
Result<uint64_t> parse_byte_size(const std::string& text);

// format_bytes lives with the runtime (leak lines use it too).
using devplan::format_bytes;

}  // namespace devplan::cli
