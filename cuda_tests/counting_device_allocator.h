// CountingDeviceAllocator: a forwarding DeviceAllocator adaptor for the Module-level GPU tests.
// Every call goes to an upstream allocator (the real CudaAllocator there); the adaptor adds one
// concern: it counts the allocations that are live, per device, and can fail chosen allocate()
// calls before they reach the upstream, so a test can prove that Module frees what it
// allocated on every path, on a real GPU.
//
//   CudaAllocator cuda(real_cuda_runtime());
//   CountingDeviceAllocator counting(cuda);
//   DeviceAllocatorRegistry allocators;
//   ASSERT_TRUE(allocators.register_allocator(&counting).ok());
//   counting.fail_allocation_at(counting.allocate_calls() + 2);  // the next call but one fails
//   ... Module::load_method fails, unwinds ...
//   EXPECT_EQ(counting.live_allocations(), 0u);
//   EXPECT_EQ(counting.misuse_count(), 0u) << counting.misuse_report();
//
// Call numbers: every allocate() call takes the next number (1-based), whether it succeeds,
// fails upstream or fails by injection. fail_allocation_at(n) makes call n fail with
// MemoryAllocationFailed without calling the upstream:
//   "CountingDeviceAllocator: injected failure of allocate call #3 (48 bytes on cuda:0)".
// An upstream error is returned unchanged.
//
// Frees: deallocate() forwards only pointers it handed out and still counts as live. A null
// pointer is forwarded (a no-op for every allocator). Any other pointer (a double free, a
// pointer never allocated here) is recorded as misuse and NOT forwarded, so a bug in the code
// under test cannot corrupt the real allocator; a free with another device index than the
// allocation's is recorded as misuse and forwarded with the allocation's index.
// Misuse lines: "free of unknown pointer 0x7f00 on cuda:0",
//               "free on cuda:1 of call #2 (48 bytes on cuda:0)".
//
// Ownership and threading: the upstream is not owned and must outlive the adaptor and every
// buffer allocated through it. Every method may be called from many threads at once (one mutex).
#pragma once

#include <runtime_ext/core/device_allocator.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace devplan::cuda_testing {

class CountingDeviceAllocator : public DeviceAllocator {
 public:
  explicit CountingDeviceAllocator(DeviceAllocator& upstream) : upstream_(upstream) {}
  CountingDeviceAllocator(const CountingDeviceAllocator&) = delete;
  CountingDeviceAllocator& operator=(const CountingDeviceAllocator&) = delete;

  // --- DeviceAllocator (see the overview) ----------------------------------------------------
  Result<void*> allocate(size_t nbytes, DeviceIndex index,
                         size_t alignment = kDefaultAlignment) override;
  void deallocate(void* ptr, DeviceIndex index) override;
  Error copy_host_to_device(void* dst, const void* src, size_t nbytes, DeviceIndex index) override;
  Error copy_device_to_host(void* dst, const void* src, size_t nbytes, DeviceIndex index) override;
  DeviceType device_type() const override { return upstream_.device_type(); }

  // --- Fault injection -----------------------------------------------------------------------

  // Makes allocate() call number `call` fail (see the overview); 0 turns injection off. One
  // number at a time: a later call replaces the earlier one.
  void fail_allocation_at(uint64_t call);

  // --- Counters --------------------------------------------------------------------------------

  // allocate() calls so far: the number the last call took.
  uint64_t allocate_calls() const;
  // allocate() calls that succeeded (a null result for zero bytes included; only non-null
  // pointers become live allocations).
  uint64_t successful_allocations() const;
  // allocate() calls that failed, upstream or by injection.
  uint64_t failed_allocations() const;
  // Pointers handed out and not yet freed, in all and on cuda:<index>.
  size_t live_allocations() const;
  size_t live_allocations_on(DeviceIndex index) const;
  // Bytes requested by the live allocations.
  size_t live_bytes() const;
  // Frees forwarded to the upstream (null pointers excluded).
  uint64_t frees() const;
  // Copies forwarded, per direction (zero-byte copies included).
  uint64_t host_to_device_copies() const;
  uint64_t device_to_host_copies() const;

  // Misuse seen by deallocate(): how many, and one line per record, each ending in '\n' ("" when
  // there is none).
  size_t misuse_count() const;
  std::string misuse_report() const;

 private:
  struct Live {
    uint64_t call = 0;
    size_t size = 0;
    DeviceIndex index = 0;
  };

  DeviceAllocator& upstream_;
  mutable std::mutex mutex_;
  // All guarded by mutex_.
  std::map<const void*, Live> live_;
  std::vector<std::string> misuse_;
  uint64_t calls_ = 0;
  uint64_t fail_at_ = 0;
  uint64_t successes_ = 0;
  uint64_t failures_ = 0;
  uint64_t frees_ = 0;
  uint64_t host_to_device_copies_ = 0;
  uint64_t device_to_host_copies_ = 0;
};

}  // namespace devplan::cuda_testing
