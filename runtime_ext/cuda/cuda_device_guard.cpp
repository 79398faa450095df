#include <runtime_ext/cuda/cuda_device_guard.h>
#include <runtime_ext/cuda/cuda_error.h>

#include <string>

namespace devplan {
namespace {

std::string visible_devices(int count) {
  if (count <= 0) return "no CUDA device is visible";
  if (count == 1) return "1 CUDA device is visible (cuda:0)";
  return std::to_string(count) +
         " CUDA devices are visible (cuda:0 to cuda:" + std::to_string(count - 1) + ")";
}

}  // namespace

Error validate_cuda_device(CudaRuntime& runtime, DeviceIndex index) {
  const std::string device = Device::cuda(index).to_string();
  if (index < 0) {
    return Error(ErrorCode::InvalidArgument,
                 "invalid device " + device + ": a CUDA device index is never negative");
  }
  int count = 0;
  const int status = runtime.get_device_count(&count);
  if (status != kCudaSuccess) {
    return cuda_status_error(runtime, status, "cudaGetDeviceCount for " + device);
  }
  if (index >= count) {
    return Error(ErrorCode::InvalidArgument,
                 "invalid device " + device + ": " + visible_devices(count));
  }
  return Error::success();
}

Error CudaDeviceGuard::select(DeviceIndex index) {
  const std::string device = Device::cuda(index).to_string();
  if (selected_) {
    return Error(ErrorCode::Internal, "CudaDeviceGuard::select(" + device +
                                          ") called twice; a guard selects one device");
  }
  selected_ = true;
  index_ = index;
  DEVPLAN_RETURN_IF_ERROR(validate_cuda_device(runtime_, index));
  int current = 0;
  int status = runtime_.get_device(&current);
  if (status != kCudaSuccess) {
    return cuda_status_error(runtime_, status, "cudaGetDevice while selecting " + device);
  }
  if (current == index) return Error::success();
  status = runtime_.set_device(index);
  if (status != kCudaSuccess) {
    return cuda_status_error(runtime_, status, "cudaSetDevice for " + device);
  }
  previous_ = current;
  switched_ = true;
  return Error::success();
}

Error CudaDeviceGuard::restore() {
  if (!switched_) return Error::success();
  switched_ = false;
  const int status = runtime_.set_device(previous_);
  if (status != kCudaSuccess) {
    return cuda_status_error(runtime_, status,
                             "cudaSetDevice restoring cuda:" + std::to_string(previous_) +
                                 " after " + Device::cuda(index_).to_string());
  }
  return Error::success();
}

}  // namespace devplan
