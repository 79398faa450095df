#include <executorch_testing/tracking_executorch_allocator.h>

#include <mocks/ledger_text.h>

namespace devplan::executorch_testing {

TrackingExecutorchAllocator::TrackingExecutorchAllocator(EtDeviceType type)
    : tracking_(from_executorch(type)), adapter_(tracking_) {
  adapter_.set_error_sink([this](const std::string& line) {
    log_to_executorch(line);
    std::lock_guard<std::mutex> lock(last_error_mu_);
    last_error_ = line;
  });
}

et::Result<void*> TrackingExecutorchAllocator::allocate(size_t nbytes, EtDeviceIndex index,
                                                        size_t alignment) {
  return adapter_.allocate(nbytes, index, alignment);
}

void TrackingExecutorchAllocator::deallocate(void* ptr, EtDeviceIndex index) {
  adapter_.deallocate(ptr, index);
}

et::Error TrackingExecutorchAllocator::copy_host_to_device(void* dst, const void* src,
                                                           size_t nbytes, EtDeviceIndex index) {
  return adapter_.copy_host_to_device(dst, src, nbytes, index);
}

et::Error TrackingExecutorchAllocator::copy_device_to_host(void* dst, const void* src,
                                                           size_t nbytes, EtDeviceIndex index) {
  return adapter_.copy_device_to_host(dst, src, nbytes, index);
}

std::string TrackingExecutorchAllocator::ledger_report() const {
  std::string text;
  for (const std::string& line : ledger_report_lines(tracking_)) text += line + "\n";
  return text;
}

std::string TrackingExecutorchAllocator::last_error() const {
  std::lock_guard<std::mutex> lock(last_error_mu_);
  return last_error_;
}

}  // namespace devplan::executorch_testing
