#include <runtime_ext/writer/bundled_program_rewrite.h>

#include <algorithm>
#include <memory>

#include <runtime_ext/program/bundled_program.h>
#include <runtime_ext/schema/bundled_program_generated.h>

namespace devplan {

Result<std::vector<uint8_t>> with_replaced_program(Span<const uint8_t> bundle,
                                                   Span<const uint8_t> program) {
  DEVPLAN_ASSIGN_OR_RETURN(BundledProgram parsed, BundledProgram::parse(bundle));
  std::vector<uint8_t> out(bundle.begin(), bundle.end());
  if (parsed.program.size() == program.size()) {
    std::copy(program.begin(), program.end(),
              out.begin() + static_cast<std::ptrdiff_t>(parsed.program_offset));
    return out;
  }
  namespace bp = devplan_bundled_flatbuffer;
  std::unique_ptr<bp::BundledProgramT> object(bp::GetBundledProgram(bundle.data())->UnPack());
  object->program.assign(program.begin(), program.end());
  flatbuffers::FlatBufferBuilder fbb;
  bp::FinishBundledProgramBuffer(fbb, bp::BundledProgram::Pack(fbb, object.get()));
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

}  // namespace devplan
