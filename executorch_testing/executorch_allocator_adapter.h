// ExecutorchAllocatorAdapter: ExecuTorch's DeviceAllocator interface over any devplan
// DeviceAllocator, so that ExecuTorch's runtime allocates through devplan's allocators (the
// tracking stack, the CUDA allocator) unchanged.
//
//   devplan::TrackingDeviceAllocator tracking(devplan::DeviceType::CUDA);
//   devplan::executorch_testing::ExecutorchAllocatorAdapter adapter(tracking);
//   devplan::executorch_testing::ScopedExecutorchAllocator scoped(adapter);  // registration.h
//
// Errors keep their code (devplan's ErrorCode values are ExecuTorch's Error values). ExecuTorch
// passes on only the code, so the adapter hands devplan's message of every failed call to an
// error sink: by default ExecuTorch's own log (ET_LOG, Error level), as
//   "devplan allocator: <message>"
// so the words reach the developer's log next to ExecuTorch's own lines.
//
// Threading: as the devplan allocator underneath; the sink is called on the failing thread.
#pragma once

#include <functional>
#include <string>

#include <executorch_testing/executorch_compat.h>
#include <runtime_ext/core/device.h>
#include <runtime_ext/core/device_allocator.h>
#include <runtime_ext/core/error.h>

namespace devplan::executorch_testing {

// ExecuTorch's device type for devplan's (CUDA -> CUDA, CPU -> CPU).
EtDeviceType to_executorch(DeviceType type);
// devplan's device type for ExecuTorch's.
DeviceType from_executorch(EtDeviceType type);
// ExecuTorch's error for devplan's code (the values are the same).
et::Error to_executorch(ErrorCode code);
// devplan's code for ExecuTorch's error.
ErrorCode from_executorch(et::Error error);

class ExecutorchAllocatorAdapter : public et::DeviceAllocator {
 public:
  using ErrorSink = std::function<void(const std::string& line)>;

  // Serves ExecuTorch's device type of `target.device_type()`; `target` must outlive this.
  explicit ExecutorchAllocatorAdapter(::devplan::DeviceAllocator& target);

  et::Result<void*> allocate(size_t nbytes, EtDeviceIndex index, size_t alignment) override;
  void deallocate(void* ptr, EtDeviceIndex index) override;
  et::Error copy_host_to_device(void* dst, const void* src, size_t nbytes,
                                EtDeviceIndex index) override;
  et::Error copy_device_to_host(void* dst, const void* src, size_t nbytes,
                                EtDeviceIndex index) override;
  EtDeviceType device_type() const override { return type_; }

  // Where the line of a failed call goes ("devplan allocator: <message>"); a null sink drops
  // them. Not thread-safe against calls in flight: set it before the allocator is used.
  void set_error_sink(ErrorSink sink) { sink_ = std::move(sink); }

  ::devplan::DeviceAllocator& target() const { return target_; }

 private:
  void report(const Error& error) const;

  ::devplan::DeviceAllocator& target_;
  const EtDeviceType type_;
  ErrorSink sink_;
};

// The default error sink: ExecuTorch's log at Error level.
void log_to_executorch(const std::string& line);

}  // namespace devplan::executorch_testing
