// A minimal host-backed DeviceAllocator for core's own tests: counts calls and remembers the
// last arguments. (The full ledger lives in mocks/; core's tests must not depend on it.)
#pragma once

#include <runtime_ext/core/device_allocator.h>

#include <cstdlib>
#include <cstring>
#include <vector>

namespace devplan::testing {

class CountingAllocator : public DeviceAllocator {
 public:
  explicit CountingAllocator(DeviceType type = DeviceType::CUDA) : type_(type) {}

  Result<void*> allocate(size_t nbytes, DeviceIndex index, size_t alignment) override {
    ++allocate_calls;
    last_index = index;
    last_alignment = alignment;
    if (fail_next) {
      fail_next = false;
      return Error(ErrorCode::MemoryAllocationFailed, "injected");
    }
    void* p = std::aligned_alloc(alignment, ((nbytes + alignment - 1) / alignment) * alignment);
    return p;
  }
  void deallocate(void* ptr, DeviceIndex index) override {
    ++deallocate_calls;
    last_index = index;
    freed.push_back(ptr);
    std::free(ptr);
  }
  Error copy_host_to_device(void* dst, const void* src, size_t n, DeviceIndex) override {
    std::memcpy(dst, src, n);
    return Error::success();
  }
  Error copy_device_to_host(void* dst, const void* src, size_t n, DeviceIndex) override {
    std::memcpy(dst, src, n);
    return Error::success();
  }
  DeviceType device_type() const override { return type_; }

  int allocate_calls = 0;
  int deallocate_calls = 0;
  DeviceIndex last_index = -1;
  size_t last_alignment = 0;
  bool fail_next = false;
  std::vector<void*> freed;

 private:
  DeviceType type_;
};

}  // namespace devplan::testing
