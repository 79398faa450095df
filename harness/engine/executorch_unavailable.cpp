// The ExecuTorch engine when devplan was built without ExecuTorch's runtime.
#include <harness/engine/engine.h>

namespace devplan::harness {

bool executorch_available() { return false; }

std::string executorch_unavailable_reason() {
  return "this devplan was built without ExecuTorch's runtime (run scripts/bootstrap.sh, which "
         "installs the executorch 1.5.1 wheel into .deps/executorch, and configure with "
         "-DDEVPLAN_WITH_EXECUTORCH=AUTO or ON)";
}

std::string executorch_engine_description() { return "not built"; }

Result<std::unique_ptr<EngineSession>> open_executorch_session(ProgramImage, DeviceEnvironment&,
                                                               const SessionOptions&) {
  return Error(ErrorCode::NotSupported, "--runtime executorch: " + executorch_unavailable_reason());
}

}  // namespace devplan::harness
