#include <harness/engine/engine.h>

namespace devplan::harness {

Result<RuntimeKind> parse_runtime_kind(const std::string& text) {
  if (text == "devplan") return RuntimeKind::Devplan;
  if (text == "executorch") return RuntimeKind::Executorch;
  return Error(ErrorCode::InvalidArgument,
               "--runtime expects devplan or executorch, got '" + text + "'");
}

const char* runtime_name(RuntimeKind kind) {
  return kind == RuntimeKind::Executorch ? "executorch" : "devplan";
}

Result<std::unique_ptr<EngineSession>> open_session(RuntimeKind kind, ProgramImage program,
                                                    DeviceEnvironment& env,
                                                    const SessionOptions& options) {
  if (kind == RuntimeKind::Executorch) {
    return open_executorch_session(std::move(program), env, options);
  }
  return open_devplan_session(std::move(program), env, options);
}

}  // namespace devplan::harness
