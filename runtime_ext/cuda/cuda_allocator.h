// CudaAllocator: the DeviceAllocator for DeviceType::CUDA. Allocates with cudaMalloc and copies
// with cudaMemcpy on the requested device, through a CudaRuntime seam (the real runtime in
// production, a fake in unit tests).
//
//   CudaAllocator allocator(real_cuda_runtime());
//   Result<void*> p = allocator.allocate(1024, /*index=*/1);        // memory on cuda:1
//   DEVPLAN_RETURN_IF_ERROR(allocator.copy_host_to_device(*p, host, 1024, 1));
//   allocator.deallocate(*p, 1);
//
// Production code registers one process-lifetime instance with register_cuda_allocator()
// (runtime_ext/cuda/cuda_registration.h).
//
// Device selection: every call that touches a device makes device `index` current for the
// call and restores the caller's current device afterwards, on every path (CudaDeviceGuard).
// An index that is negative or not below the device count, or a failing cudaSetDevice, is an
// error naming the device; nothing is ever allocated or copied on another device instead.
//
// Alignment: cudaMalloc returns memory aligned to kCudaMallocAlignment (256) bytes, which
// serves every power-of-two alignment up to 256. A larger power of two is HONOURED: the
// allocator over-allocates by (alignment - 256) bytes, returns the first aligned address in the
// block and remembers the block's base pointer, which deallocate() frees. An alignment that is
// not a power of two (0 included) is InvalidArgument, as is a size whose padding overflows.
//
// Zero bytes: allocate(0, ...) checks the alignment and the index like any request (so a bad
// one is still an error), allocates nothing and returns nullptr. deallocate(nullptr, ...) is a
// no-op, so the result needs no free but may be given to deallocate. A zero-byte copy is a
// no-op that calls nothing (after rejecting a negative index); pointers may then be null.
//
// Errors: every failed CUDA call becomes an Error whose message starts with the method
// ("CudaAllocator::allocate: ") and carries the call, the device, cudaGetErrorString's text and
// the status number; cudaErrorMemoryAllocation maps to MemoryAllocationFailed (see
// cuda_status_code for the rest).
//
// deallocate() never fails: it frees the block even when the index is wrong (cudaFree does not
// depend on the current device) and records every problem it meets, readable through
// deallocation_errors() and last_deallocation_error().
//
// Ownership and threading: the runtime is not owned and must outlive the allocator. All methods
// may be called from many threads at once (the current device is per thread in CUDA).
#pragma once

#include <runtime_ext/core/device_allocator.h>
#include <runtime_ext/cuda/cuda_runtime_interface.h>

#include <cstddef>
#include <mutex>
#include <unordered_map>

namespace devplan {

class CudaAllocator : public DeviceAllocator {
 public:
  // The alignment cudaMalloc guarantees.
  static constexpr size_t kCudaMallocAlignment = 256;

  explicit CudaAllocator(CudaRuntime& runtime) : runtime_(runtime) {}
  CudaAllocator(const CudaAllocator&) = delete;
  CudaAllocator& operator=(const CudaAllocator&) = delete;

  // `nbytes` on cuda:<index>, aligned to `alignment`. InvalidArgument for a bad alignment,
  // index or padded size; MemoryAllocationFailed when cudaMalloc runs out of memory; the mapped
  // CUDA error otherwise. Nothing stays allocated after an error.
  Result<void*> allocate(size_t nbytes, DeviceIndex index,
                         size_t alignment = kDefaultAlignment) override;

  // Frees `ptr` (from allocate(..., index)) on cuda:<index>. nullptr is a no-op.
  void deallocate(void* ptr, DeviceIndex index) override;

  // cudaMemcpy host -> device on cuda:<index>. InvalidArgument for a negative index or a null
  // pointer with nbytes > 0.
  Error copy_host_to_device(void* dst, const void* src, size_t nbytes, DeviceIndex index) override;

  // cudaMemcpy device -> host on cuda:<index>. Same rules as copy_host_to_device.
  Error copy_device_to_host(void* dst, const void* src, size_t nbytes, DeviceIndex index) override;

  DeviceType device_type() const override { return DeviceType::CUDA; }

  CudaRuntime& runtime() const { return runtime_; }

  // How many problems deallocate() has recorded, and the latest ("CudaAllocator::deallocate:
  // cudaFree on cuda:1 failed: ..."); Ok when none.
  size_t deallocation_errors() const;
  Error last_deallocation_error() const;

  // Over-aligned blocks whose aligned address differs from their base and that are not yet
  // freed.
  size_t outstanding_over_aligned() const;

 private:
  Error copy(void* dst, const void* src, size_t nbytes, DeviceIndex index,
             CudaMemcpyDirection direction, const char* method);
  void record_deallocation_error(Error error);

  CudaRuntime& runtime_;
  mutable std::mutex mutex_;
  std::unordered_map<void*, void*> over_aligned_bases_;  // aligned address -> cudaMalloc base
  size_t deallocation_errors_ = 0;
  Error last_deallocation_error_;
};

}  // namespace devplan
