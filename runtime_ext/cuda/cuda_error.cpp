#include <runtime_ext/cuda/cuda_error.h>

namespace devplan {

ErrorCode cuda_status_code(int status) {
  switch (status) {
    case kCudaSuccess:
      return ErrorCode::Ok;
    case kCudaErrorMemoryAllocation:
      return ErrorCode::MemoryAllocationFailed;
    case kCudaErrorInvalidValue:
    case kCudaErrorInvalidDevice:
    case kCudaErrorNoDevice:
      return ErrorCode::InvalidArgument;
    default:
      return ErrorCode::Internal;
  }
}

std::string cuda_error_string(CudaRuntime& runtime, int status) {
  const char* text = runtime.get_error_string(status);
  return text != nullptr ? std::string(text) : std::string("unrecognized CUDA error");
}

Error cuda_status_error(CudaRuntime& runtime, int status, const std::string& what) {
  if (status == kCudaSuccess) return Error::success();
  return Error(cuda_status_code(status), what + " failed: " + cuda_error_string(runtime, status) +
                                             " (CUDA error " + std::to_string(status) + ")");
}

}  // namespace devplan
