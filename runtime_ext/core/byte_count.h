// Byte counts as people read them: "768 B", "1056768 B (1.0 MiB)". Every text that names a
// size (leak lines, reports, tool output) shows it this way; JSON keeps plain bytes.
#pragma once

#include <cstdint>
#include <string>

namespace devplan {

// "N B" below 1 KiB, else "N B (X.Y UNIT)" with the largest binary unit (KiB ... EiB) that keeps
// X >= 1, one decimal.
std::string format_bytes(uint64_t bytes);

}  // namespace devplan
