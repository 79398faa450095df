#include <runtime_ext/writer/bundled_program_rewrite.h>

#include <algorithm>

#include <runtime_ext/program/bundled_program.h>
#include <runtime_ext/schema/bundled_program_generated.h>
#include <runtime_ext/writer/flatbuffer_patch.h>

namespace devplan {
namespace {

namespace bp = devplan_bundled_flatbuffer;
using writer_internal::field_position;
using writer_internal::put_scalar;

constexpr size_t kProgramAlignment = 32;  // bundled_program.fbs: program (force_align: 32)

}  // namespace

Result<std::vector<uint8_t>> with_replaced_program(Span<const uint8_t> bundle,
                                                   Span<const uint8_t> program) {
  DEVPLAN_ASSIGN_OR_RETURN(BundledProgram parsed, BundledProgram::parse(bundle));
  std::vector<uint8_t> out(bundle.begin(), bundle.end());
  size_t data = parsed.program_offset;
  if (program.size() > parsed.program.size()) {
    // A new [ubyte] vector at the end, its data aligned; the root's `program` points to it.
    const size_t field = field_position(out.data(), bp::GetBundledProgram(out.data()),
                                        bp::BundledProgram::VT_PROGRAM);
    data = (out.size() + 4 + kProgramAlignment - 1) / kProgramAlignment * kProgramAlignment;
    out.resize(data + program.size(), 0);
    put_scalar<uint32_t>(out, field, static_cast<uint32_t>(data - 4 - field));
  }
  put_scalar<uint32_t>(out, data - 4, static_cast<uint32_t>(program.size()));  // the length
  std::copy(program.begin(), program.end(), out.begin() + static_cast<std::ptrdiff_t>(data));
  return out;
}

}  // namespace devplan
