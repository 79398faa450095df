// Internal to devplan::cuda (builds with CUDA only): the steps around one launch of a kernel on
// operands a and b into out, shared by cuda_elementwise_add and cuda_elementwise_binary.
//
//   DEVPLAN_RETURN_IF_ERROR(run_cuda_kernel("cuda_elementwise_add", device, a, b, out,
//                                           "add of 4 float32 elements on cuda:0",
//                                           [&] { launch_elementwise_add_kernel(...); }));
#pragma once

#include <runtime_ext/core/device.h>
#include <runtime_ext/core/error.h>

#include <functional>
#include <string>

namespace devplan {

// On cuda:<device>, in order: validates the device, checks that a, b and out are memory on it
// ("input a", "input b", "output out": check_cuda_device_pointer), makes it current, calls
// `launch` (which queues the kernel on the current device's default stream) and waits for the
// kernel, so that its fault is reported here; then restores the caller's current device, as it
// does on every path. A failing launch or synchronisation is its mapped CUDA error, "launching
// the <what>" or "running the <what>". Every error has `name` as its context.
Error run_cuda_kernel(const char* name, DeviceIndex device, const void* a, const void* b,
                      const void* out, const std::string& what,
                      const std::function<void()>& launch);

}  // namespace devplan
