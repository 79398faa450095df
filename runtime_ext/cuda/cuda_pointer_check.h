// check_cuda_device_pointer: whether a pointer handed to a CUDA kernel is memory that device
// can use, asked before the launch so that a misplaced buffer is an error naming it rather
// than an illegal-address fault that poisons the CUDA context.
//
//   DEVPLAN_RETURN_IF_ERROR(check_cuda_device_pointer(runtime, out, 1, "out"));
//   // InvalidArgument "out is not memory on cuda:1: it is device memory on cuda:0"
#pragma once

#include <runtime_ext/core/device.h>
#include <runtime_ext/core/error.h>
#include <runtime_ext/cuda/cuda_runtime_interface.h>

#include <string>

namespace devplan {

// Ok when cudaPointerGetAttributes reports `ptr` as device memory of cuda:<index>, or as
// managed memory (usable from any device). InvalidArgument otherwise, saying what `ptr` is:
// "<name> is not memory on cuda:<index>: it is null | it is unregistered host memory | it is
// page-locked host memory | it is device memory on cuda:<d>". A failing query is its mapped
// CUDA error ("cudaPointerGetAttributes for <name> failed: ..."). Needs no current device.
Error check_cuda_device_pointer(CudaRuntime& runtime, const void* ptr, DeviceIndex index,
                                const std::string& name);

}  // namespace devplan
