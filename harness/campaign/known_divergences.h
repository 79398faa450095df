// The ids of the known divergences between runtime_ext and ExecuTorch 1.5.1
// (docs/executorch-divergences.md): the differential check counts them instead of failing.
#pragma once

namespace devplan::harness {

constexpr const char* kDivergenceAlignment = "device-alignment";
constexpr const char* kDivergenceZeroSizeBuffer = "zero-size-device-buffer";
// A case whose program has an IntList that ExecuTorch rejects (it reads the items as value
// indices): the rest of that case is not compared.
constexpr const char* kDivergenceIntListItems = "intlist-items";
// A method that uses a tensor after a FreeCall: not executed under ExecuTorch (it crashes).
constexpr const char* kDivergenceUseAfterFree = "use-after-free";
// A method input planned in device memory: ExecuTorch's set_input refuses host data for it.
constexpr const char* kDivergenceDevicePlannedInput = "device-planned-input";
// A delegate whose backend is not registered: ExecuTorch fails the load (NotFound), runtime_ext
// loads and fails at execute. The rest of the case is not compared.
constexpr const char* kDivergenceMissingBackend = "missing-backend";
// An operator runtime_ext has no kernel for (it has add, mul and the copies; ExecuTorch has its
// CPU kernel library): that method's outputs are not compared.
constexpr const char* kDivergenceMissingKernel = "missing-kernel";

}  // namespace devplan::harness
