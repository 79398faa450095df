#include <harness/engine/raw_program.h>

#include <algorithm>

#include <flatbuffers/flatbuffers.h>

#include <runtime_ext/schema/program_generated.h>

namespace devplan::harness {
namespace {

namespace fb = devplan_flatbuffer;

const fb::Program* verified_program(Span<const uint8_t> bytes) {
  flatbuffers::Verifier verifier(bytes.data(), bytes.size());
  if (!fb::VerifyProgramBuffer(verifier)) return nullptr;
  return fb::GetProgram(bytes.data());
}

}  // namespace

std::vector<std::string> delegate_ids(Span<const uint8_t> bytes, const std::string& method) {
  std::vector<std::string> ids;
  const fb::Program* program = verified_program(bytes);
  if (program == nullptr || program->execution_plan() == nullptr) return ids;
  for (const auto* plan : *program->execution_plan()) {
    if (plan == nullptr || plan->delegates() == nullptr) continue;
    if (!method.empty() && (plan->name() == nullptr || plan->name()->str() != method)) continue;
    for (const auto* d : *plan->delegates()) {
      if (d != nullptr && d->id() != nullptr) ids.push_back(d->id()->str());
    }
  }
  return ids;
}

std::vector<CallerSuppliedTensor> caller_supplied_tensors(Span<const uint8_t> bytes,
                                                          const std::string& method) {
  std::vector<CallerSuppliedTensor> found;
  const fb::Program* program = verified_program(bytes);
  if (program == nullptr || program->execution_plan() == nullptr) return found;
  for (const auto* plan : *program->execution_plan()) {
    if (plan == nullptr || plan->name() == nullptr || plan->name()->str() != method) continue;
    const auto* values = plan->values();
    std::vector<int32_t> seen;
    auto visit = [&](const flatbuffers::Vector<int32_t>* indices, bool output) {
      if (indices == nullptr || values == nullptr) return;
      for (flatbuffers::uoffset_t i = 0; i < indices->size(); ++i) {
        const int32_t v = indices->Get(i);
        if (v < 0 || static_cast<flatbuffers::uoffset_t>(v) >= values->size()) continue;
        const fb::EValue* value = values->Get(static_cast<flatbuffers::uoffset_t>(v));
        const fb::Tensor* t = value == nullptr ? nullptr : value->val_as_Tensor();
        if (t == nullptr || t->allocation_info() != nullptr || t->data_buffer_idx() != 0) continue;
        const fb::ExtraTensorInfo* extra = t->extra_tensor_info();
        if (extra == nullptr || extra->device_type() == fb::DeviceType::CPU) continue;
        if (std::find(seen.begin(), seen.end(), v) != seen.end()) continue;
        seen.push_back(v);
        CallerSuppliedTensor c;
        c.output = output;
        c.index = i;
        c.device = Device(static_cast<DeviceType>(extra->device_type()), extra->device_index());
        c.dtype = static_cast<ScalarType>(t->scalar_type());
        uint64_t numel = 1;
        if (t->sizes() != nullptr) {
          for (int32_t s : *t->sizes()) {
            c.sizes.push_back(s);
            numel *= static_cast<uint64_t>(s < 0 ? 0 : s);
          }
        }
        c.nbytes = numel * element_size(c.dtype);
        found.push_back(std::move(c));
      }
    };
    visit(plan->inputs(), false);
    visit(plan->outputs(), true);
  }
  return found;
}

}  // namespace devplan::harness
