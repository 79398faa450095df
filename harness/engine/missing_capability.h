// Why a method could not load or run when the engine lacks what it needs (kernels, delegates'
// backends): reported as "not run" or "not probed", never as an error.
#pragma once

#include <string>

#include <runtime_ext/core/error.h>

namespace devplan::harness {

// "no kernel for aten::sin.out, aten::cos.out; no backend CoreMLBackend"; "" for any other
// error. Both engines name each missing one once ("operator X has no kernel", "needs backend Y,
// which ...", "Backend Y is not registered").
std::string missing_capability(const Error& e);

}  // namespace devplan::harness
