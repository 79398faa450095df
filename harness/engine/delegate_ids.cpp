#include <harness/engine/delegate_ids.h>

#include <flatbuffers/flatbuffers.h>

#include <runtime_ext/schema/program_generated.h>

namespace devplan::harness {

std::vector<std::string> delegate_ids(const std::vector<uint8_t>& bytes) {
  std::vector<std::string> ids;
  flatbuffers::Verifier verifier(bytes.data(), bytes.size());
  if (!devplan_flatbuffer::VerifyProgramBuffer(verifier)) return ids;
  const auto* program = devplan_flatbuffer::GetProgram(bytes.data());
  if (program->execution_plan() == nullptr) return ids;
  for (const auto* plan : *program->execution_plan()) {
    if (plan == nullptr || plan->delegates() == nullptr) continue;
    for (const auto* d : *plan->delegates()) {
      if (d != nullptr && d->id() != nullptr) ids.push_back(d->id()->str());
    }
  }
  return ids;
}

}  // namespace devplan::harness
