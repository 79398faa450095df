#include "stand_in_backend.h"

#include <executorch/runtime/backend/interface.h>

namespace {
namespace et = ::executorch::runtime;

class StandInBackend final : public et::BackendInterface {
 public:
  bool is_available() const override { return true; }
  et::Result<et::DelegateHandle*> init(et::BackendInitContext&, et::FreeableBuffer* processed,
                                       et::ArrayRef<et::CompileSpec>) const override {
    if (processed != nullptr) processed->Free();
    return reinterpret_cast<et::DelegateHandle*>(const_cast<StandInBackend*>(this));
  }
  et::Error execute(et::BackendExecutionContext&, et::DelegateHandle*,
                    et::Span<et::EValue*>) const override {
    return et::Error::NotSupported;
  }
};

}  // namespace

void register_stand_in_backend() {
  static const bool registered = [] {
    static StandInBackend backend;
    return et::register_backend(et::Backend{"DevplanDeviceBackend", &backend}) == et::Error::Ok;
  }();
  (void)registered;
}
