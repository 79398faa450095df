// CudaDeviceGuard: makes a CUDA device current for one operation and restores the calling
// thread's previous current device when the operation ends, on every path.
//
//   CudaDeviceGuard guard(runtime);
//   DEVPLAN_RETURN_IF_ERROR(guard.select(index));   // InvalidArgument for a bad index
//   int status = runtime.malloc(&ptr, nbytes);        // runs on cuda:<index>
//   ...                                               // ~CudaDeviceGuard restores
//
// A device that cannot be selected is an error, never a silent fallback to the current device:
// select() validates the index against the device count before touching the current device.
// Not copyable or movable; one guard per operation and thread.
#pragma once

#include <runtime_ext/core/device.h>
#include <runtime_ext/core/error.h>
#include <runtime_ext/cuda/cuda_runtime_interface.h>

namespace devplan {

// Ok when `index` names a visible device: 0 <= index < device count. Otherwise
// InvalidArgument naming the device ("invalid device cuda:4: 4 CUDA devices are visible
// (cuda:0 to cuda:3)"), or the mapped error of a failing cudaGetDeviceCount
// ("cudaGetDeviceCount for cuda:0 failed: ..."). Calls nothing for a negative index; changes no
// current device.
Error validate_cuda_device(CudaRuntime& runtime, DeviceIndex index);

class CudaDeviceGuard {
 public:
  explicit CudaDeviceGuard(CudaRuntime& runtime) : runtime_(runtime) {}
  // Restores the previous device if select() changed it; a failure to restore here is lost,
  // so success paths call restore() themselves to see it.
  ~CudaDeviceGuard() { (void)restore(); }
  CudaDeviceGuard(const CudaDeviceGuard&) = delete;
  CudaDeviceGuard& operator=(const CudaDeviceGuard&) = delete;

  // Makes `index` the current device (validate_cuda_device first; no cudaSetDevice when it is
  // already current). On error the current device is unchanged. Call at most once per guard:
  // a second call is Internal.
  Error select(DeviceIndex index);

  // Makes the device that was current before select() current again, if select() changed it.
  // Idempotent: ok and no call when there is nothing to restore. Errors name both devices:
  // "cudaSetDevice restoring cuda:0 after cuda:1 failed: ...".
  Error restore();

  // True from a select() that changed the current device until restore().
  bool switched() const { return switched_; }

 private:
  CudaRuntime& runtime_;
  bool selected_ = false;
  bool switched_ = false;
  int previous_ = 0;
  DeviceIndex index_ = 0;
};

}  // namespace devplan
