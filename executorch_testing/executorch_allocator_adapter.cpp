#include <executorch_testing/executorch_allocator_adapter.h>

#include <executorch/runtime/platform/log.h>

namespace devplan::executorch_testing {

EtDeviceType to_executorch(DeviceType type) {
  return static_cast<EtDeviceType>(static_cast<int8_t>(type));
}

DeviceType from_executorch(EtDeviceType type) {
  return static_cast<DeviceType>(static_cast<int8_t>(type));
}

et::Error to_executorch(ErrorCode code) {
  return static_cast<et::Error>(static_cast<uint32_t>(code));
}

ErrorCode from_executorch(et::Error error) {
  return static_cast<ErrorCode>(static_cast<uint32_t>(error));
}

void log_to_executorch(const std::string& line) { ET_LOG(Error, "%s", line.c_str()); }

ExecutorchAllocatorAdapter::ExecutorchAllocatorAdapter(::devplan::DeviceAllocator& target)
    : target_(target), type_(to_executorch(target.device_type())), sink_(&log_to_executorch) {}

void ExecutorchAllocatorAdapter::report(const Error& error) const {
  if (sink_) sink_("devplan allocator: " + error.message());
}

et::Result<void*> ExecutorchAllocatorAdapter::allocate(size_t nbytes, EtDeviceIndex index,
                                                       size_t alignment) {
  Result<void*> r = target_.allocate(nbytes, index, alignment);
  if (!r.ok()) {
    report(r.error());
    return to_executorch(r.code());
  }
  return *r;
}

void ExecutorchAllocatorAdapter::deallocate(void* ptr, EtDeviceIndex index) {
  target_.deallocate(ptr, index);
}

et::Error ExecutorchAllocatorAdapter::copy_host_to_device(void* dst, const void* src, size_t nbytes,
                                                          EtDeviceIndex index) {
  const Error e = target_.copy_host_to_device(dst, src, nbytes, index);
  if (e.ok()) return et::Error::Ok;
  report(e);
  return to_executorch(e.code());
}

et::Error ExecutorchAllocatorAdapter::copy_device_to_host(void* dst, const void* src, size_t nbytes,
                                                          EtDeviceIndex index) {
  const Error e = target_.copy_device_to_host(dst, src, nbytes, index);
  if (e.ok()) return et::Error::Ok;
  report(e);
  return to_executorch(e.code());
}

}  // namespace devplan::executorch_testing
