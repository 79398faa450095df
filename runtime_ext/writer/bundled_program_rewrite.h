// Replacing the program inside a bundled program file (ahead of time: `devplan replan` on a
// `.bpte`). The test sets and every other field stay.
//
//   Result<std::vector<uint8_t>> bpte = with_replaced_program(bundle_bytes, new_program_bytes);
//
// A program no larger than the old one is written over its bytes and its vector's length is set
// (the rest of the file stays byte for byte, a shorter program leaves unused bytes after it). A
// larger one goes into a new vector appended to the end of the bundle (aligned to 32, as the
// schema says), and the root's `program` field points to it: the old bytes stay, unused, so the
// file grows by the program's size. Packing the object API's BundledProgramT anew is not used:
// it leaves out empty vectors (a method with no inputs), which readers may require.
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
