// Replacing the program inside a bundled program file (ahead of time: `devplan replan` on a
// `.bpte`). The test sets and every other field stay.
//
//   Result<std::vector<uint8_t>> bpte = with_replaced_program(bundle_bytes, new_program_bytes);
//
// A program of the same size is written over the old one's bytes (the rest of the file stays
// byte for byte); another size unpacks the bundle into the object API's BundledProgramT, swaps
// the program and packs it again (the program stays aligned to 32, as the schema says).
#pragma once

#include <cstdint>
#include <vector>

#include <runtime_ext/core/result.h>
#include <runtime_ext/core/span.h>

namespace devplan {

// InvalidProgram (BundledProgram::parse's errors) when `bundle` is not a bundled program.
Result<std::vector<uint8_t>> with_replaced_program(Span<const uint8_t> bundle,
                                                   Span<const uint8_t> program);

}  // namespace devplan
