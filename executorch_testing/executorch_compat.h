// The one place where devplan's ExecuTorch code meets differences between ExecuTorch versions.
// cmake/DevplanExecutorchRuntime.cmake puts on devplan::executorch_runtime:
//   DEVPLAN_EXECUTORCH_SOURCE_BUILD  1 for the install tree of a source build, 0 for the wheel
//   DEVPLAN_EXECUTORCH_VERSION       "1.5.1", or the source build's version text
// A version whose API differs is handled here and nowhere else.
//
// Versions compared (headers of the 1.5.1 wheel against the source of 2026-08-22, cff6f4dd32,
// which calls itself 1.5.0): what devplan uses is the same in both: DeviceAllocator and its
// registry, DeviceType/DeviceIndex, the PAL log hook, BackendInterface and register_backend,
// MethodMeta's planned-buffer devices, Module's constructors and load_method. They differ where
// devplan does not reach: make_tensor_ptr takes its Device last in the source and after the
// dtype in 1.5.1, from_blob has no Device in the source, and only the source installs
// runtime/core/version.h (ET_VERSION_CODE). Behaviour differs too: the source's
// Module::load_method aborts (ET_CHECK_MSG) when a device allocation fails, where 1.5.1
// returns the error; devplan reports that abort as a finding (docs/executorch-divergences.md).
#pragma once

#include <executorch/runtime/core/device_allocator.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/portable_type/device.h>
#include <executorch/runtime/core/result.h>

#ifndef DEVPLAN_EXECUTORCH_SOURCE_BUILD
#define DEVPLAN_EXECUTORCH_SOURCE_BUILD 0
#endif
#ifndef DEVPLAN_EXECUTORCH_VERSION
#define DEVPLAN_EXECUTORCH_VERSION "unknown"
#endif

namespace devplan::executorch_testing {

namespace et = ::executorch::runtime;
using EtDeviceType = ::executorch::runtime::etensor::DeviceType;
using EtDeviceIndex = ::executorch::runtime::etensor::DeviceIndex;

// Which ExecuTorch this was compiled against: "the executorch 1.5.1+cpu wheel" or "an
// ExecuTorch source build (1.5.0, commit cff6f4dd32)".
inline const char* executorch_build_description() {
  return DEVPLAN_EXECUTORCH_SOURCE_BUILD ? "an ExecuTorch source build (" DEVPLAN_EXECUTORCH_VERSION
                                           ")"
                                         : "the executorch " DEVPLAN_EXECUTORCH_VERSION " wheel";
}

// How many device types ExecuTorch's allocator registry has slots for.
constexpr size_t kExecutorchDeviceTypes = ::executorch::runtime::etensor::kNumDeviceTypes;

}  // namespace devplan::executorch_testing
