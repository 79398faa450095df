#include "fake_cuda_runtime.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace devplan::testing {

FakeCudaRuntime::FakeCudaRuntime(int device_count, size_t capacity_per_device)
    : device_count_(device_count), capacity_(capacity_per_device) {}

FakeCudaRuntime::~FakeCudaRuntime() {
  for (auto& entry : allocations_) std::free(entry.second.host_block);
}

int FakeCudaRuntime::get_device_count(int* count) {
  std::lock_guard<std::mutex> lock(mutex_);
  log_locked("get_device_count");
  if (get_device_count_status != kCudaSuccess) return get_device_count_status;
  *count = device_count_;
  return kCudaSuccess;
}

int FakeCudaRuntime::get_device(int* device) {
  std::lock_guard<std::mutex> lock(mutex_);
  log_locked("get_device");
  if (get_device_status != kCudaSuccess) return get_device_status;
  *device = current_locked();
  return kCudaSuccess;
}

int FakeCudaRuntime::set_device(int device) {
  std::lock_guard<std::mutex> lock(mutex_);
  log_locked("set_device(" + std::to_string(device) + ")");
  auto injected = set_device_status.find(device);
  if (injected != set_device_status.end() && injected->second != kCudaSuccess) {
    return injected->second;
  }
  if (device < 0 || device >= device_count_) return kCudaErrorInvalidDevice;
  current_[std::this_thread::get_id()] = device;
  return kCudaSuccess;
}

int FakeCudaRuntime::malloc(void** ptr, size_t nbytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  const int device = current_locked();
  log_locked("malloc(" + std::to_string(nbytes) + ") on cuda:" + std::to_string(device));
  if (malloc_status != kCudaSuccess) return malloc_status;
  if (nbytes == 0) {
    *ptr = nullptr;
    return kCudaSuccess;
  }
  size_t used = 0;
  for (const auto& entry : allocations_) {
    if (entry.second.device == device) used += entry.second.size;
  }
  if (nbytes > capacity_ || used > capacity_ - nbytes) return kCudaErrorMemoryAllocation;
  const size_t rounded =
      (nbytes + malloc_offset + kBlockAlignment - 1) / kBlockAlignment * kBlockAlignment;
  void* block = std::aligned_alloc(kBlockAlignment, rounded);
  if (block == nullptr) return kCudaErrorMemoryAllocation;
  void* handed_out = static_cast<char*>(block) + malloc_offset;
  allocations_[handed_out] = Allocation{block, nbytes, device};
  *ptr = handed_out;
  return kCudaSuccess;
}

int FakeCudaRuntime::free(void* ptr) {
  std::lock_guard<std::mutex> lock(mutex_);
  log_locked("free on cuda:" + std::to_string(current_locked()));
  if (free_status != kCudaSuccess) return free_status;
  if (ptr == nullptr) return kCudaSuccess;
  auto it = allocations_.find(ptr);
  if (it == allocations_.end()) return kCudaErrorInvalidValue;
  std::free(it->second.host_block);
  allocations_.erase(it);
  return kCudaSuccess;
}

int FakeCudaRuntime::memcpy(void* dst, const void* src, size_t nbytes,
                            CudaMemcpyDirection direction) {
  std::lock_guard<std::mutex> lock(mutex_);
  const char* name = direction == CudaMemcpyDirection::HostToDevice   ? "host to device"
                     : direction == CudaMemcpyDirection::DeviceToHost ? "device to host"
                                                                      : "device to device";
  log_locked(std::string("memcpy ") + name + " " + std::to_string(nbytes) +
             " bytes on cuda:" + std::to_string(current_locked()));
  if (memcpy_status != kCudaSuccess) return memcpy_status;
  if (nbytes == 0) return kCudaSuccess;
  const void* start = nullptr;
  const bool dst_ok = direction == CudaMemcpyDirection::HostToDevice ||
                              direction == CudaMemcpyDirection::DeviceToDevice
                          ? find_locked(dst, nbytes, &start) != nullptr
                          : dst != nullptr;
  const bool src_ok = direction == CudaMemcpyDirection::DeviceToHost ||
                              direction == CudaMemcpyDirection::DeviceToDevice
                          ? find_locked(src, nbytes, &start) != nullptr
                          : src != nullptr;
  if (!dst_ok || !src_ok) return kCudaErrorInvalidValue;
  std::memmove(dst, src, nbytes);
  return kCudaSuccess;
}

const char* FakeCudaRuntime::get_error_string(int status) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    log_locked("get_error_string(" + std::to_string(status) + ")");
  }
  switch (status) {
    case kCudaSuccess:
      return "no error";
    case kCudaErrorInvalidValue:
      return "invalid argument";
    case kCudaErrorMemoryAllocation:
      return "out of memory";
    case kCudaErrorInitializationError:
      return "initialization error";
    case kCudaErrorInsufficientDriver:
      return "CUDA driver version is insufficient for CUDA runtime version";
    case kCudaErrorNoDevice:
      return "no CUDA-capable device is detected";
    case kCudaErrorInvalidDevice:
      return "invalid device ordinal";
    case kCudaErrorIllegalAddress:
      return "an illegal memory access was encountered";
    case kCudaErrorUnknown:
      return "unknown error";
    default:
      return "unrecognized error code";
  }
}

int FakeCudaRuntime::mem_get_info(size_t* free_bytes, size_t* total_bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  const int device = current_locked();
  log_locked("mem_get_info on cuda:" + std::to_string(device));
  if (mem_get_info_status != kCudaSuccess) return mem_get_info_status;
  size_t used = 0;
  for (const auto& entry : allocations_) {
    if (entry.second.device == device) used += entry.second.size;
  }
  *free_bytes = capacity_ - used;
  *total_bytes = capacity_;
  return kCudaSuccess;
}

int FakeCudaRuntime::pointer_get_attributes(CudaPointerAttributes* attributes, const void* ptr) {
  std::lock_guard<std::mutex> lock(mutex_);
  log_locked("pointer_get_attributes");
  if (pointer_attributes_status != kCudaSuccess) return pointer_attributes_status;
  const void* start = nullptr;
  const Allocation* allocation = find_locked(ptr, 1, &start);
  if (allocation == nullptr) {
    attributes->type = CudaMemoryType::Unregistered;
    attributes->device = -1;
  } else {
    attributes->type = CudaMemoryType::Device;
    attributes->device = allocation->device;
  }
  return kCudaSuccess;
}

std::vector<std::string> FakeCudaRuntime::calls() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return calls_;
}

void FakeCudaRuntime::clear_calls() {
  std::lock_guard<std::mutex> lock(mutex_);
  calls_.clear();
}

int FakeCudaRuntime::current_device() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return current_locked();
}

void FakeCudaRuntime::set_current_device(int device) {
  std::lock_guard<std::mutex> lock(mutex_);
  current_[std::this_thread::get_id()] = device;
}

size_t FakeCudaRuntime::live_allocations() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return allocations_.size();
}

size_t FakeCudaRuntime::live_bytes(int device) const {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t used = 0;
  for (const auto& entry : allocations_) {
    if (entry.second.device == device) used += entry.second.size;
  }
  return used;
}

int FakeCudaRuntime::device_of(const void* ptr) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const void* start = nullptr;
  const Allocation* allocation = find_locked(ptr, 1, &start);
  return allocation == nullptr ? -1 : allocation->device;
}

size_t FakeCudaRuntime::size_of(const void* ptr) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = allocations_.find(ptr);
  return it == allocations_.end() ? 0 : it->second.size;
}

const void* FakeCudaRuntime::block_of(const void* ptr) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const void* start = nullptr;
  return find_locked(ptr, 1, &start) == nullptr ? nullptr : start;
}

const FakeCudaRuntime::Allocation* FakeCudaRuntime::find_locked(const void* ptr, size_t nbytes,
                                                                const void** start) const {
  if (ptr == nullptr) return nullptr;
  auto it = allocations_.upper_bound(ptr);
  if (it == allocations_.begin()) return nullptr;
  --it;
  const uintptr_t begin = reinterpret_cast<uintptr_t>(it->first);
  const uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
  if (p - begin > it->second.size || nbytes > it->second.size - (p - begin)) return nullptr;
  *start = it->first;
  return &it->second;
}

int FakeCudaRuntime::current_locked() const {
  auto it = current_.find(std::this_thread::get_id());
  return it == current_.end() ? 0 : it->second;
}

void FakeCudaRuntime::log_locked(std::string call) { calls_.push_back(std::move(call)); }

}  // namespace devplan::testing
