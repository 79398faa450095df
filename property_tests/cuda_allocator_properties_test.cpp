// CudaAllocator over FakeCudaRuntime with random requests: any power-of-two alignment (up to
// 16 KiB, far above cudaMalloc's 256-byte guarantee), any size (zero included), any of four
// devices, and cudaMalloc bases that are 256-aligned but not more (malloc_offset). Checked
// after every request against what cudaMalloc was asked for and what stays live.
#include <cstdint>
#include <map>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <runtime_ext/core/alignment.h>
#include <runtime_ext/cuda/cuda_allocator.h>
#include <runtime_ext/cuda/test/fake_cuda_runtime.h>

#include "property.h"

namespace devplan::testing {
namespace {

constexpr size_t kCudaMallocGuarantee = 256;

struct Request {
  size_t nbytes = 0;
  DeviceIndex index = 0;
  size_t alignment = 1;
  bool free_one = false;  // free a live allocation (chosen by `pick`) instead of allocating
  size_t pick = 0;
};

rc::Gen<Request> gen_request() {
  return rc::gen::build<Request>(
      rc::gen::set(&Request::nbytes,
                   rc::gen::weightedOneOf<size_t>(
                       {{1, rc::gen::just<size_t>(0)}, {6, rc::gen::inRange<size_t>(1, 8193)}})),
      rc::gen::set(&Request::index, rc::gen::inRange<DeviceIndex>(0, 4)),
      rc::gen::set(&Request::alignment,
                   rc::gen::map(rc::gen::inRange(0, 15), [](int k) { return size_t{1} << k; })),
      rc::gen::set(&Request::free_one, rc::gen::arbitrary<bool>()),
      rc::gen::set(&Request::pick, rc::gen::inRange<size_t>(0, 64)));
}

// What cudaMalloc must be asked for: the request, plus the worst-case padding from a 256-byte
// aligned base when the alignment is larger; nothing is asked for zero bytes.
size_t expected_malloc_bytes(const Request& r) {
  if (r.nbytes == 0) return 0;
  return r.alignment > kCudaMallocGuarantee ? r.nbytes + r.alignment - kCudaMallocGuarantee
                                            : r.nbytes;
}

DEVPLAN_PROP(CudaAllocatorAlignment, AnyPowerOfTwoOnAnyDeviceFromAnyCudaBase, ()) {
  const size_t offset = *rc::gen::map(
      rc::gen::inRange(0, 16), [](int k) { return static_cast<size_t>(k) * kCudaMallocGuarantee; });
  const std::vector<Request> requests = *rc::gen::container<std::vector<Request>>(gen_request());
  FakeCudaRuntime fake(4, size_t{4} << 20);
  fake.malloc_offset = offset;
  CudaAllocator allocator(fake);
  struct Live {
    void* ptr;
    DeviceIndex index;
  };
  std::vector<Live> live;
  for (const Request& r : requests) {
    if (r.free_one && !live.empty()) {
      const size_t k = r.pick % live.size();
      allocator.deallocate(live[k].ptr, live[k].index);
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(k));
    } else {
      fake.clear_calls();
      Result<void*> p = allocator.allocate(r.nbytes, r.index, r.alignment);
      RC_ASSERT(p.ok());
      if (r.nbytes == 0) {
        RC_ASSERT((*p == nullptr));
        continue;
      }
      RC_ASSERT(is_aligned(*p, r.alignment));
      RC_ASSERT(fake.device_of(*p) == static_cast<int>(r.index));
      const uint8_t* base = static_cast<const uint8_t*>(fake.block_of(*p));
      RC_ASSERT((base != nullptr));
      const size_t asked = expected_malloc_bytes(r);
      RC_ASSERT(fake.size_of(base) == asked);
      const size_t padding = static_cast<size_t>(static_cast<const uint8_t*>(*p) - base);
      RC_ASSERT(padding + r.nbytes <= asked);
      if (r.alignment <= kCudaMallocGuarantee) RC_ASSERT(padding == 0u);
      live.push_back({*p, r.index});
    }
    size_t shifted = 0;
    for (const Live& l : live) shifted += fake.block_of(l.ptr) != l.ptr ? 1 : 0;
    RC_ASSERT(allocator.outstanding_over_aligned() == shifted);
    RC_ASSERT(fake.live_allocations() == live.size());
  }
  for (const Live& l : live) allocator.deallocate(l.ptr, l.index);
  RC_ASSERT(fake.live_allocations() == 0u);
  RC_ASSERT(allocator.outstanding_over_aligned() == 0u);
  RC_ASSERT(allocator.deallocation_errors() == 0u);
}

// An alignment that is not a power of two is InvalidArgument and reaches no CUDA call,
// whatever its size; the powers of two next to it are accepted.
DEVPLAN_PROP(CudaAllocatorAlignment, NonPowersOfTwoAreRejectedWithoutACall, ()) {
  const int k = *rc::gen::inRange(1, 15);
  const size_t power = size_t{1} << k;
  const size_t bad = power + *rc::gen::inRange<size_t>(1, power);  // strictly between powers
  const size_t nbytes = *rc::gen::inRange<size_t>(1, 4097);
  FakeCudaRuntime fake(4);
  CudaAllocator allocator(fake);
  Result<void*> p = allocator.allocate(nbytes, 1, bad);
  RC_ASSERT(p.code() == ErrorCode::InvalidArgument);
  RC_ASSERT(fake.calls().empty());
  for (size_t good : {power, power * 2}) {
    Result<void*> q = allocator.allocate(nbytes, 1, good);
    RC_ASSERT(q.ok());
    RC_ASSERT(is_aligned(*q, good));
    allocator.deallocate(*q, 1);
  }
  RC_ASSERT(fake.live_allocations() == 0u);
}

}  // namespace
}  // namespace devplan::testing
