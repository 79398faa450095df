// ForwardingDeviceAllocator: a DeviceAllocator that forwards every call, unchanged, to an
// upstream DeviceAllocator: the base of the plain wrappers that change one or two calls and pass
// the rest through (RecordingDeviceAllocator, UnloadBugAllocator). The adaptors that
// TrackingDeviceAllocator stacks, which free sized, derive from DeviceAllocatorAdaptor instead.
//
//   class CountingFrees : public ForwardingDeviceAllocator {
//    public:
//     using ForwardingDeviceAllocator::ForwardingDeviceAllocator;
//     void deallocate(void* ptr, DeviceIndex index) override {
//       ++frees;
//       upstream().deallocate(ptr, index);
//     }
//     int frees = 0;
//   };
//
// Not thread-safe beyond what the upstream is (it keeps no state of its own); device_type() asks
// the upstream on every call. The upstream must outlive this allocator.
#pragma once

#include <runtime_ext/core/device_allocator.h>

namespace devplan {

class ForwardingDeviceAllocator : public DeviceAllocator {
 public:
  explicit ForwardingDeviceAllocator(DeviceAllocator* upstream) : upstream_(upstream) {}

  Result<void*> allocate(size_t nbytes, DeviceIndex index, size_t alignment) override {
    return upstream_->allocate(nbytes, index, alignment);
  }
  void deallocate(void* ptr, DeviceIndex index) override { upstream_->deallocate(ptr, index); }
  Error copy_host_to_device(void* dst, const void* src, size_t nbytes, DeviceIndex index) override {
    return upstream_->copy_host_to_device(dst, src, nbytes, index);
  }
  Error copy_device_to_host(void* dst, const void* src, size_t nbytes, DeviceIndex index) override {
    return upstream_->copy_device_to_host(dst, src, nbytes, index);
  }
  DeviceType device_type() const override { return upstream_->device_type(); }

 protected:
  DeviceAllocator& upstream() const { return *upstream_; }

 private:
  DeviceAllocator* const upstream_;
};

}  // namespace devplan
