// CudaAllocator on real GPUs: freeing returns every byte. Free memory is read with
// cudaMemGetInfo; the context's own drift is measured once, on a warm-up round of the same
// work, and is the only difference allowed.
#include <gtest/gtest.h>
#include <runtime_ext/cuda/cuda_allocator.h>
#include <runtime_ext/cuda/real_cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "cuda_test.h"

namespace devplan::cuda_testing {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

size_t difference(size_t a, size_t b) { return a > b ? a - b : b - a; }

class CudaAllocatorCleanupTest : public CudaTest {
 protected:
  // |free after - free before| of running `work` on `device` once.
  size_t drift_of(int device, const std::function<void()>& work) {
    const size_t before = free_device_memory(device);
    work();
    return difference(free_device_memory(device), before);
  }
  CudaAllocator allocator_{real_cuda_runtime()};
};

TEST_F(CudaAllocatorCleanupTest, FreeMemoryReturnsToItsValueBefore) {
  for (int d = 0; d < device_count(); ++d) {
    SCOPED_TRACE("cuda:" + std::to_string(d));
    const DeviceIndex index = static_cast<DeviceIndex>(d);
    size_t lowest_while_held = SIZE_MAX;
    auto work = [&] {
      std::vector<std::pair<void*, size_t>> held;
      for (auto [size, alignment] : {std::pair<size_t, size_t>{kMiB, 16},
                                     {64 * kMiB, 256},
                                     {100, 4096},
                                     {3 * kMiB + 5, 65536}}) {
        Result<void*> p = allocator_.allocate(size, index, alignment);
        ASSERT_TRUE(p.ok()) << p.error();
        held.emplace_back(*p, size);
      }
      lowest_while_held = std::min(lowest_while_held, free_device_memory(d));
      for (auto& block : held) allocator_.deallocate(block.first, index);
    };
    const size_t drift = drift_of(d, work);  // warm-up round
    const size_t before = free_device_memory(d);
    lowest_while_held = SIZE_MAX;
    work();
    const size_t after = free_device_memory(d);
    if (under_compute_sanitizer()) continue;  // the tool's own memory moves the readings
    // The reading is sensitive enough to see what was held...
    EXPECT_LE(lowest_while_held + 64 * kMiB, before);
    // ...and everything came back.
    EXPECT_LE(difference(after, before), drift) << "before " << before << ", after " << after;
  }
  EXPECT_EQ(allocator_.deallocation_errors(), 0u) << allocator_.last_deallocation_error();
  EXPECT_EQ(allocator_.outstanding_over_aligned(), 0u);
}

TEST_F(CudaAllocatorCleanupTest, ThousandAllocateFreeCyclesKeepDeviceMemoryStable) {
  constexpr int kCycles = 1000;
  for (int d = 0; d < device_count(); ++d) {
    SCOPED_TRACE("cuda:" + std::to_string(d));
    const DeviceIndex index = static_cast<DeviceIndex>(d);
    int failures = 0;
    auto cycle = [&](int n) {
      for (int i = 0; i < n; ++i) {
        // Alternate plain and over-aligned blocks of varying size.
        const size_t size = kMiB + static_cast<size_t>(i % 7) * 4096;
        const size_t alignment = (i % 2 == 0) ? kDefaultAlignment : 4096;
        Result<void*> p = allocator_.allocate(size, index, alignment);
        if (!p.ok()) {
          ++failures;
          continue;
        }
        allocator_.deallocate(*p, index);
      }
    };
    const size_t drift = drift_of(d, [&] { cycle(10); });
    const size_t before = free_device_memory(d);
    cycle(kCycles);
    const size_t after = free_device_memory(d);
    EXPECT_EQ(failures, 0);
    if (under_compute_sanitizer()) continue;  // the tool's own memory moves the readings
    EXPECT_LE(difference(after, before), drift) << "before " << before << ", after " << after;
  }
  EXPECT_EQ(allocator_.deallocation_errors(), 0u) << allocator_.last_deallocation_error();
  EXPECT_EQ(allocator_.outstanding_over_aligned(), 0u);
}

}  // namespace
}  // namespace devplan::cuda_testing
