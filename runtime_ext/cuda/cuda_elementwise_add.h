// cuda_elementwise_add: out[i] = a[i] + b[i] for n elements of one dtype, as a CUDA kernel on
// one device. The compute behind the CUDA device backend's add (DeviceAddBackend in the
// fixture programs). Part of devplan::cuda (builds with CUDA only).
//
//   // a, b, out: device memory of cuda:0 holding 4 float32 each
//   DEVPLAN_RETURN_IF_ERROR(cuda_elementwise_add(a, b, out, 4, ScalarType::Float, 0));
//
// Supported dtypes: Float (float32), Int (int32), Long (int64). Integer addition wraps
// (two's complement) rather than being undefined. `out` may alias `a` or `b`.
#pragma once

#include <runtime_ext/core/device.h>
#include <runtime_ext/core/error.h>
#include <runtime_ext/program/scalar_type.h>

#include <cstddef>

namespace devplan {

// Runs the add on cuda:<device> and waits for it to finish, so a kernel fault is reported here.
// The caller's current device is restored on every path. In order:
//   - NotSupported for another dtype;
//   - n == 0 is a no-op that calls nothing;
//   - InvalidArgument for a negative or absent device, or when a, b or out is not memory on
//     that device (null, host memory, another device's memory: check_cuda_device_pointer),
//     checked before anything is launched;
//   - the mapped CUDA error of a failing launch or synchronisation.
// Every message starts with "cuda_elementwise_add: " and names the device.
Error cuda_elementwise_add(const void* a, const void* b, void* out, size_t n, ScalarType dtype,
                           DeviceIndex device);

}  // namespace devplan
