// IndexMappingDeviceAllocator: an adaptor that serves device indices the upstream does not have by
// sending each call on to another index of the upstream. It lets a program planned for cuda:1 run
// on a machine with one GPU (`devplan ... --device cuda --device-map cuda:1=cuda:0`).
//
//   CudaAllocator cuda(real_cuda_runtime());
//   IndexMappingDeviceAllocator mapped(&cuda);
//   DEVPLAN_RETURN_IF_ERROR(mapped.map(1, 0));   // cuda:1's calls go to cuda:0
//   Result<void*> p = mapped.allocate(48, 1);     // cudaMalloc on cuda:0
//
// An index with no mapping goes through unchanged. Only the index changes: sizes, pointers and
// errors are the upstream's. Mappings are set before use (not synchronized with the calls, which
// are as thread-safe as the upstream's). Ownership: the upstream must outlive the adaptor.
#pragma once

#include <array>

#include <runtime_ext/core/device_allocator.h>

namespace devplan {

class IndexMappingDeviceAllocator : public DeviceAllocator {
 public:
  explicit IndexMappingDeviceAllocator(DeviceAllocator* upstream);

  // Sends `from`'s calls to `to`. InvalidArgument for a negative index, or for `from` mapped
  // already (to another index).
  Error map(DeviceIndex from, DeviceIndex to);
  // The upstream index `index`'s calls go to.
  DeviceIndex target(DeviceIndex index) const;

  Result<void*> allocate(size_t nbytes, DeviceIndex index,
                         size_t alignment = kDefaultAlignment) override;
  void deallocate(void* ptr, DeviceIndex index) override;
  Error copy_host_to_device(void* dst, const void* src, size_t nbytes, DeviceIndex index) override;
  Error copy_device_to_host(void* dst, const void* src, size_t nbytes, DeviceIndex index) override;
  DeviceType device_type() const override { return upstream_->device_type(); }

 private:
  DeviceAllocator* const upstream_;
  std::array<DeviceIndex, kMaxDeviceIndex + 1> targets_;  // identity until mapped
};

}  // namespace devplan
