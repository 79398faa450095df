// The one place where devplan's ExecuTorch code meets differences between ExecuTorch versions.
// cmake/DevplanExecutorchRuntime.cmake puts on devplan::executorch_runtime:
//   DEVPLAN_EXECUTORCH_SOURCE_BUILD  1 for the install tree of a source build, 0 for the wheel
//   DEVPLAN_EXECUTORCH_VERSION       "1.5.1", or the source build's version text
// Everything else in devplan includes ExecuTorch's headers through this file and uses the
// names below, so a version whose API differs is handled here and nowhere else.
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

// "the executorch 1.5.1 wheel" or "an ExecuTorch source build (<version>)".
inline const char* executorch_build_description() {
  return DEVPLAN_EXECUTORCH_SOURCE_BUILD ? "an ExecuTorch source build (" DEVPLAN_EXECUTORCH_VERSION
                                           ")"
                                         : "the executorch " DEVPLAN_EXECUTORCH_VERSION " wheel";
}

// How many device types ExecuTorch's allocator registry has slots for.
constexpr size_t kExecutorchDeviceTypes = ::executorch::runtime::etensor::kNumDeviceTypes;

}  // namespace devplan::executorch_testing
