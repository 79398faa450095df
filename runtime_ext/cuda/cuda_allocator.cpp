#include <runtime_ext/core/alignment.h>
#include <runtime_ext/cuda/cuda_allocator.h>
#include <runtime_ext/cuda/cuda_device_guard.h>
#include <runtime_ext/cuda/cuda_error.h>

#include <cstdint>
#include <string>
#include <utility>

namespace devplan {
namespace {

constexpr char kAllocate[] = "CudaAllocator::allocate";
constexpr char kDeallocate[] = "CudaAllocator::deallocate";
constexpr char kCopyHostToDevice[] = "CudaAllocator::copy_host_to_device";
constexpr char kCopyDeviceToHost[] = "CudaAllocator::copy_device_to_host";

std::string bytes_on(size_t nbytes, DeviceIndex index) {
  return std::to_string(nbytes) + " bytes on " + Device::cuda(index).to_string();
}

}  // namespace

Result<void*> CudaAllocator::allocate(size_t nbytes, DeviceIndex index, size_t alignment) {
  const std::string device = Device::cuda(index).to_string();
  if (!is_power_of_two(alignment)) {
    return Error(ErrorCode::InvalidArgument,
                 std::string(kAllocate) + ": alignment " + std::to_string(alignment) +
                     " is not a power of two (allocating " + bytes_on(nbytes, index) + ")");
  }
  // Bytes to ask cudaMalloc for: the request plus the worst-case padding to reach `alignment`
  // from a 256-byte aligned base.
  size_t total = nbytes;
  if (alignment > kCudaMallocAlignment && nbytes > 0) {
    const size_t padding = alignment - kCudaMallocAlignment;
    if (nbytes > SIZE_MAX - padding) {
      return Error(ErrorCode::InvalidArgument, std::string(kAllocate) + ": " +
                                                   bytes_on(nbytes, index) + " aligned to " +
                                                   std::to_string(alignment) + " overflows size_t");
    }
    total = nbytes + padding;
  }

  if (nbytes == 0) {
    DEVPLAN_RETURN_IF_ERROR(validate_cuda_device(runtime_, index).with_context(kAllocate));
    return static_cast<void*>(nullptr);
  }

  CudaDeviceGuard guard(runtime_);
  DEVPLAN_RETURN_IF_ERROR(guard.select(index).with_context(kAllocate));

  void* base = nullptr;
  const int status = runtime_.malloc(&base, total);
  if (status != kCudaSuccess) {
    std::string what = "cudaMalloc of " + std::to_string(total) + " bytes";
    if (total != nbytes) {
      what +=
          " (" + std::to_string(nbytes) + " bytes aligned to " + std::to_string(alignment) + ")";
    }
    return cuda_status_error(runtime_, status, what + " on " + device).with_context(kAllocate);
  }
  if (base == nullptr) {
    return Error(
        ErrorCode::MemoryAllocationFailed,
        std::string(kAllocate) + ": cudaMalloc returned null for " + bytes_on(total, index));
  }

  const uintptr_t base_address = reinterpret_cast<uintptr_t>(base);
  const uintptr_t aligned_address =
      (base_address + (alignment - 1)) & ~static_cast<uintptr_t>(alignment - 1);
  if (aligned_address < base_address || aligned_address - base_address > total - nbytes) {
    // The runtime broke cudaMalloc's 256-byte guarantee (or the address space wrapped).
    (void)runtime_.free(base);
    return Error(ErrorCode::Internal,
                 std::string(kAllocate) + ": cudaMalloc on " + device +
                     " returned memory that cannot hold " + std::to_string(nbytes) +
                     " bytes aligned to " + std::to_string(alignment) + " (expected " +
                     std::to_string(kCudaMallocAlignment) + "-byte alignment)");
  }
  void* aligned = reinterpret_cast<void*>(aligned_address);

  Error restored = guard.restore();
  if (!restored.ok()) {
    (void)runtime_.free(base);
    return restored.with_context(kAllocate);
  }
  if (aligned != base) {
    std::lock_guard<std::mutex> lock(mutex_);
    over_aligned_bases_[aligned] = base;
  }
  return aligned;
}

void CudaAllocator::deallocate(void* ptr, DeviceIndex index) {
  if (ptr == nullptr) return;
  void* base = ptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = over_aligned_bases_.find(ptr);
    if (it != over_aligned_bases_.end()) {
      base = it->second;
      over_aligned_bases_.erase(it);
    }
  }
  CudaDeviceGuard guard(runtime_);
  Error selected = guard.select(index);
  // A bad index is recorded, and the block freed all the same: cudaFree does not depend on the
  // current device, and keeping the block would turn one misuse into a leak as well.
  if (!selected.ok()) record_deallocation_error(selected.with_context(kDeallocate));
  const int status = runtime_.free(base);
  if (status != kCudaSuccess) {
    record_deallocation_error(
        cuda_status_error(runtime_, status, "cudaFree on " + Device::cuda(index).to_string())
            .with_context(kDeallocate));
  }
  Error restored = guard.restore();
  if (!restored.ok()) record_deallocation_error(restored.with_context(kDeallocate));
}

Error CudaAllocator::copy_host_to_device(void* dst, const void* src, size_t nbytes,
                                         DeviceIndex index) {
  return copy(dst, src, nbytes, index, CudaMemcpyDirection::HostToDevice, kCopyHostToDevice);
}

Error CudaAllocator::copy_device_to_host(void* dst, const void* src, size_t nbytes,
                                         DeviceIndex index) {
  return copy(dst, src, nbytes, index, CudaMemcpyDirection::DeviceToHost, kCopyDeviceToHost);
}

Error CudaAllocator::copy(void* dst, const void* src, size_t nbytes, DeviceIndex index,
                          CudaMemcpyDirection direction, const char* method) {
  if (index < 0) {
    // validate_cuda_device makes no call for a negative index.
    return validate_cuda_device(runtime_, index).with_context(method);
  }
  if (nbytes == 0) return Error::success();
  if (dst == nullptr || src == nullptr) {
    return Error(ErrorCode::InvalidArgument, std::string(method) + ": null " +
                                                 (dst == nullptr ? "destination" : "source") +
                                                 " for " + bytes_on(nbytes, index));
  }
  CudaDeviceGuard guard(runtime_);
  DEVPLAN_RETURN_IF_ERROR(guard.select(index).with_context(method));
  const int status = runtime_.memcpy(dst, src, nbytes, direction);
  if (status != kCudaSuccess) {
    const char* dir =
        direction == CudaMemcpyDirection::HostToDevice ? "host to device" : "device to host";
    return cuda_status_error(runtime_, status,
                             std::string("cudaMemcpy ") + dir + " of " + bytes_on(nbytes, index))
        .with_context(method);
  }
  return guard.restore().with_context(method);
}

size_t CudaAllocator::deallocation_errors() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return deallocation_errors_;
}

Error CudaAllocator::last_deallocation_error() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return last_deallocation_error_;
}

size_t CudaAllocator::outstanding_over_aligned() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return over_aligned_bases_.size();
}

void CudaAllocator::record_deallocation_error(Error error) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++deallocation_errors_;
  last_deallocation_error_ = std::move(error);
}

}  // namespace devplan
