#include <runtime_ext/cuda/cuda_error.h>
#include <runtime_ext/cuda/cuda_pointer_check.h>

namespace devplan {

Error check_cuda_device_pointer(CudaRuntime& runtime, const void* ptr, DeviceIndex index,
                                const std::string& name) {
  const std::string prefix = name + " is not memory on " + Device::cuda(index).to_string() + ": ";
  if (ptr == nullptr) return Error(ErrorCode::InvalidArgument, prefix + "it is null");
  CudaPointerAttributes attributes;
  const int status = runtime.pointer_get_attributes(&attributes, ptr);
  if (status != kCudaSuccess) {
    return cuda_status_error(runtime, status, "cudaPointerGetAttributes for " + name);
  }
  switch (attributes.type) {
    case CudaMemoryType::Managed:
      return Error::success();
    case CudaMemoryType::Device:
      if (attributes.device == index) return Error::success();
      return Error(ErrorCode::InvalidArgument,
                   prefix + "it is device memory on cuda:" + std::to_string(attributes.device));
    case CudaMemoryType::Host:
      return Error(ErrorCode::InvalidArgument, prefix + "it is page-locked host memory");
    case CudaMemoryType::Unregistered:
      break;
  }
  return Error(ErrorCode::InvalidArgument, prefix + "it is unregistered host memory");
}

}  // namespace devplan
