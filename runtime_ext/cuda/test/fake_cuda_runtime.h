// FakeCudaRuntime: a CudaRuntime with N host-backed devices, for unit tests of CUDA code on
// machines without a GPU.
//
//   FakeCudaRuntime fake(/*device_count=*/4);
//   CudaAllocator allocator(fake);
//   Result<void*> p = allocator.allocate(64, 2);
//   EXPECT_EQ(fake.device_of(*p), 2);
//   EXPECT_EQ(fake.calls(), (std::vector<std::string>{"get_device_count", "get_device",
//             "set_device(2)", "malloc(64) on cuda:2", "set_device(0)"}));
//
// Behaves as CUDA does where devplan depends on it: the current device is per thread and starts
// at 0; cudaSetDevice to an absent ordinal is cudaErrorInvalidDevice and changes nothing;
// malloc returns page-aligned memory of the current device (see malloc_offset) and fails with
// cudaErrorMemoryAllocation past the device's capacity; free(nullptr) succeeds; memcpy checks
// that the device side lies inside one live allocation (cudaErrorInvalidValue otherwise);
// get_error_string returns CUDA's own texts. Every call is logged, with the current device
// where it matters. Failures are injected through the public *_status fields.
// Thread-safe (one mutex); leftover allocations are freed by the destructor.
#pragma once

#include <runtime_ext/cuda/cuda_runtime_interface.h>

#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace devplan::testing {

class FakeCudaRuntime : public CudaRuntime {
 public:
  static constexpr size_t kDefaultCapacity = size_t{1} << 20;
  static constexpr size_t kBlockAlignment = 4096;

  explicit FakeCudaRuntime(int device_count = 1, size_t capacity_per_device = kDefaultCapacity);
  ~FakeCudaRuntime() override;
  FakeCudaRuntime(const FakeCudaRuntime&) = delete;
  FakeCudaRuntime& operator=(const FakeCudaRuntime&) = delete;

  int get_device_count(int* count) override;
  int get_device(int* device) override;
  int set_device(int device) override;
  int malloc(void** ptr, size_t nbytes) override;
  int free(void* ptr) override;
  int memcpy(void* dst, const void* src, size_t nbytes, CudaMemcpyDirection direction) override;
  const char* get_error_string(int status) override;
  int mem_get_info(size_t* free_bytes, size_t* total_bytes) override;
  int pointer_get_attributes(CudaPointerAttributes* attributes, const void* ptr) override;

  // Injected failures: a call of that kind returns the status (and does nothing) while it is
  // not kCudaSuccess. set_device_status applies only to set_device(device) for that key.
  int get_device_count_status = kCudaSuccess;
  int get_device_status = kCudaSuccess;
  std::map<int, int> set_device_status;
  int malloc_status = kCudaSuccess;
  int free_status = kCudaSuccess;
  int memcpy_status = kCudaSuccess;
  int mem_get_info_status = kCudaSuccess;
  int pointer_attributes_status = kCudaSuccess;
  // malloc's blocks start kBlockAlignment-aligned and are handed out shifted by this many bytes
  // (free expects the shifted pointer): 256 gives memory that meets CUDA's 256-byte guarantee
  // but no larger alignment; 8 breaks the guarantee.
  size_t malloc_offset = 0;

  // Every call in order: "get_device_count", "get_device", "set_device(2)",
  // "malloc(64) on cuda:2", "free on cuda:2", "memcpy host to device 16 bytes on cuda:2",
  // "mem_get_info on cuda:0", "pointer_get_attributes", "get_error_string(2)".
  std::vector<std::string> calls() const;
  void clear_calls();

  // The calling thread's current device; set_current_device changes it without logging.
  int current_device() const;
  void set_current_device(int device);

  // Live allocations and their bytes, in total or on one device.
  size_t live_allocations() const;
  size_t live_bytes(int device) const;
  // The device owning the live allocation that contains `ptr`, or -1.
  int device_of(const void* ptr) const;
  // The size requested for the live allocation starting at `ptr`, or 0.
  size_t size_of(const void* ptr) const;
  // The start of the live allocation that contains `ptr`, or nullptr.
  const void* block_of(const void* ptr) const;

 private:
  struct Allocation {
    void* host_block = nullptr;  // what std::aligned_alloc returned
    size_t size = 0;
    int device = 0;
  };
  // The live allocation whose [start, start + size) holds [ptr, ptr + nbytes), or nullptr.
  const Allocation* find_locked(const void* ptr, size_t nbytes, const void** start) const;
  int current_locked() const;
  void log_locked(std::string call);

  mutable std::mutex mutex_;
  int device_count_;
  size_t capacity_;
  std::map<std::thread::id, int> current_;
  std::map<const void*, Allocation> allocations_;  // keyed by the pointer handed out
  std::vector<std::string> calls_;
};

}  // namespace devplan::testing
