// Which engine loads and runs programs: runtime_ext (`devplan`, the default) or ExecuTorch
// 1.5.1's own runtime (`executorch`). Every command that loads programs takes --runtime.
#pragma once

#include <string>

#include <runtime_ext/core/result.h>

namespace devplan::harness {

enum class RuntimeKind : int { Devplan, Executorch };

// "devplan" or "executorch"; InvalidArgument otherwise.
Result<RuntimeKind> parse_runtime_kind(const std::string& text);
const char* runtime_name(RuntimeKind kind);

}  // namespace devplan::harness
