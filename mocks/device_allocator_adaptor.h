// DeviceAllocatorAdaptor: the base of the adaptors that TrackingDeviceAllocator stacks, after
// RMM's resource adaptors. An adaptor wraps an upstream DeviceAllocator, forwards every call to
// it unless it overrides the call, and adds one job (statistics, limits, faults, ...).
//
//   BlockStoreDeviceAllocator host;
//   LimitingDeviceAllocator limited(&host);
//   DEVPLAN_RETURN_IF_ERROR(limited.set_capacity(0, 1 << 20));
//
// Both copy methods arrive at one virtual copy(const DeviceCopy&), so an adaptor handles the two
// directions on one path. Frees travel down sized (see SizedDeviceAllocator): a plain
// deallocate() asks find_live_block() once and continues as deallocate_sized(), so that adaptors
// only override deallocate_sized(). An upstream that is not a SizedDeviceAllocator gets plain
// deallocate() calls, and find_live_block() answers nullopt.
//
// `name` starts every error message ("<name>::allocate: ..."), so that a composition can speak
// with its own name (TrackingDeviceAllocator passes its own to every layer).
//
// Threading: adaptors are not synchronized. Serialize every call to a stack
// (each TrackingShard of TrackingDeviceAllocator holds one mutex around its stack); a lock per
// layer would cost more than most layers' work. Ownership: the upstream must outlive the adaptor.
#pragma once

#include <string>

#include <mocks/copy_direction.h>
#include <mocks/sized_device_allocator.h>

namespace devplan {

class DeviceAllocatorAdaptor : public SizedDeviceAllocator {
 public:
  DeviceAllocatorAdaptor(DeviceAllocator* upstream, std::string name);

  Result<void*> allocate(size_t nbytes, DeviceIndex index,
                         size_t alignment = kDefaultAlignment) override;
  void deallocate(void* ptr, DeviceIndex index) override;
  void deallocate_sized(void* ptr, size_t nbytes, DeviceIndex index) override;
  std::optional<LiveBlock> find_live_block(const void* ptr) const override;
  Error copy_host_to_device(void* dst, const void* src, size_t nbytes, DeviceIndex index) final;
  Error copy_device_to_host(void* dst, const void* src, size_t nbytes, DeviceIndex index) final;
  DeviceType device_type() const override { return type_; }

  DeviceAllocator& upstream() const { return *upstream_; }
  const std::string& name() const { return name_; }

 protected:
  // Both copy methods; the default forwards to the upstream.
  virtual Error copy(const DeviceCopy& copy);
  // Calls the upstream's method for copy.direction.
  Error forward_copy(const DeviceCopy& copy);
  // Frees on the upstream, sized when it can take a size.
  void forward_deallocate(void* ptr, size_t nbytes, DeviceIndex index);
  // Error(code, "<name>::<method>: <message>").
  Error error(const char* method, ErrorCode code, const std::string& message) const;

 private:
  DeviceAllocator* const upstream_;
  SizedDeviceAllocator* const sized_upstream_;  // the upstream when sized, else nullptr
  const DeviceType type_;                       // the upstream's, asked once
  const std::string name_;
};

}  // namespace devplan
